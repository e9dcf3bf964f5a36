"""Stock codes as every layer must see them: six ASCII digits. Input arrives full-width
(６００５１９), in other scripts' digits (٦٠٠٥١٩) or with stray whitespace; all of it is folded
to one spelling before validation so one stock never becomes several rows."""

from __future__ import annotations

import math
import re
import unicodedata

_ASCII_CODE = re.compile(r"[0-9]{6}")


def normalise_code(raw: object) -> str | None:
    """The six-ASCII-digit code `raw` spells, or None when it spells none."""
    if not isinstance(raw, str):
        return None
    text = unicodedata.normalize("NFKC", raw).strip()
    # NFKC leaves non-Latin decimal digits (Arabic-Indic, Devanagari...) alone: map them.
    folded = "".join(str(unicodedata.decimal(ch)) if ch.isdecimal() else ch for ch in text)
    return folded if _ASCII_CODE.fullmatch(folded) else None


def is_finite_number(value: object) -> bool:
    """A real, finite number (not bool, NaN or ±Infinity): what prices, shares and costs must be."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
