"""One cell as a value: a day, a time, a number, a stock code, as clients spell them
(2025-03-03, 2025/3/3, 20250303, 2025年3月3日; 09:31:05, 093105; 1,234.50, ¥-12.00)."""

from __future__ import annotations

import math
import re
from datetime import date

from pixiu_cli.kernel.codes import normalise_code

_DAY = re.compile(r"(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})\s*日?")
_COMPACT_DAY = re.compile(r"(\d{4})(\d{2})(\d{2})")
_TIME = re.compile(r"(\d{1,2}):?(\d{2}):?(\d{2})?")
_EMPTY = {"", "-", "--", "—", "null", "none"}


def day_of(text: str) -> str | None:
    """YYYY-MM-DD, or None when the cell is no date."""
    match = _DAY.fullmatch(text) or _COMPACT_DAY.fullmatch(text)
    if not match:
        return None
    try:
        return date(*(int(g) for g in match.groups())).isoformat()
    except ValueError:
        return None


def time_of(text: str) -> str | None:
    match = _TIME.fullmatch(text.strip())
    if not match:
        return None
    hour, minute, second = match.group(1), match.group(2), match.group(3) or "00"
    if int(hour) > 23 or int(minute) > 59 or int(second) > 59:
        return None
    return f"{int(hour):02d}:{minute}:{second}"


def number_of(text: str) -> float | None:
    """The number a cell spells, None for an empty one; ValueError for anything else."""
    try:  # most cells are a plain number; the rest are read as below
        value = float(text)
    except ValueError:
        pass
    else:
        if not math.isfinite(value):
            raise ValueError(text)
        return value
    cleaned = text.replace(",", "").replace("¥", "").replace("￥", "").replace(" ", "")
    if cleaned.lower() in _EMPTY:
        return None
    value = float(cleaned)  # raises ValueError
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def code_of(text: str) -> str | None:
    """Six ASCII digits, however the client spelled them (６００５１９); a code Excel stripped
    of its leading zeros (333) gets them back."""
    digits = text.strip()
    return normalise_code(digits.zfill(6)) if 0 < len(digits) <= 6 else None
