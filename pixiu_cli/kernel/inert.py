"""Inert text: what pixiu writes anywhere (a terminal, a pipe, a saved file, a push) carries
no control sequence that would act on whatever shows it. Stored text (notes, news, titles, the
model's replies) and echoed input reach terminals, so control characters must not act on it:
ESC sequences could clear the screen, set the title or write the clipboard, a carriage return
could overwrite a line.
C0 controls other than newline and tab become their visible Control Pictures (␛, ␇ …),
carriage returns are dropped, DEL and C1 controls and lone surrogates (which would also
fail to encode) become U+FFFD. Bidirectional overrides and isolates (U+202A–202E,
U+2066–2069) would make text read differently from what it is ("Trojan Source"): they
become U+FFFD too. The one sanitiser: the terminal, pipes, /save, exports and push payloads
all use it."""

from __future__ import annotations

import re

_VISIBLE = {c: chr(0x2400 + c) for c in range(0x20) if chr(c) not in "\n\t\r"}
_VISIBLE.update({ord("\r"): None, 0x7F: "\ufffd"})
_VISIBLE.update({c: "\ufffd" for c in (*range(0x80, 0xA0), *range(0xD800, 0xE000))})
BIDI_CONTROLS = (*range(0x202A, 0x202F), *range(0x2066, 0x206A))
_VISIBLE.update({c: "\ufffd" for c in BIDI_CONTROLS})
# In JSON the same characters are written as \uXXXX escapes: the
# document still decodes to exactly the same strings.
_JSON_ESCAPES = {c: f"\\u{c:04x}" for c in (0x7F, *range(0x80, 0xA0), *BIDI_CONTROLS, *range(0xD800, 0xE000))}


def inert_json(text: str) -> str:
    """JSON text (as json.dumps with ensure_ascii=False writes it) with DEL, C1 controls and
    bidi overrides escaped. They can only occur inside strings, so the result is valid JSON
    with the same value."""
    return text.translate(_JSON_ESCAPES)


UNSAFE = re.compile("[" + "".join(re.escape(chr(c)) for c in _VISIBLE if c < 0xD800 or c >= 0xE000) + "\ud800-\udfff]")


def visible(text: str) -> str:
    """`text` with every control character made inert (see above); newlines and tabs kept."""
    # Most text has none: a search is much cheaper than translating character by character.
    return text.translate(_VISIBLE) if UNSAFE.search(text) else text
