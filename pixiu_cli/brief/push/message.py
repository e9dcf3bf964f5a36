"""What is pushed, and how a text too long for a channel is cut: at line breaks into parts no
larger than the channel's limit (measured as that channel counts: UTF-8 bytes, UTF-16 units,
the JSON body), at most a few parts; past that the rest is left out and the last part says so."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from pixiu_cli.kernel.safe_text import visible

MAX_PARTS = 5  # the bots allow 20 messages a minute; a brief in more parts is no longer read on a phone
SHORTENED = "…（内容过长，其余部分未推送；完整内容见 pixiu）"


@dataclass(frozen=True)
class Message:
    title: str
    text: str  # plain text, for channels that do not render Markdown
    markdown: str
    as_of: str | None  # the session the content is about
    kind: str  # "brief" | "alert" | "test"

    def inert(self) -> Message:
        """The message with every control sequence in it made visible (domain/inert.py)."""
        return replace(self, title=visible(self.title), text=visible(self.text), markdown=visible(self.markdown))


@dataclass(frozen=True)
class Parts:
    texts: list[str]
    shortened: bool  # some of the text was left out


Measure = Callable[[str], int]


def utf8(text: str) -> int:
    return len(text.encode("utf-8"))


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def json_bytes(text: str) -> int:
    """The bytes `text` takes inside a JSON body (escapes included)."""
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8")) - 2


def _cut(line: str, limit: int, measure: Measure) -> list[str]:
    """A line longer than `limit`, in pieces that each fit (never splitting a character)."""
    pieces, start = [], 0
    while start < len(line):
        low, high = start + 1, len(line)
        while low < high:  # the longest prefix that fits
            middle = (low + high + 1) // 2
            if measure(line[start:middle]) <= limit:
                low = middle
            else:
                high = middle - 1
        pieces.append(line[start:low])
        start = low
    return pieces


def _chunks(text: str, limit: int, measure: Measure) -> list[str]:
    chunks: list[str] = []
    current = ""
    for line in text.split("\n"):
        for piece in _cut(line, limit, measure) if measure(line) > limit else [line]:
            candidate = f"{current}\n{piece}" if current else piece
            if current and measure(candidate) > limit:
                chunks.append(current)
                candidate = piece
            current = candidate
    if current.strip():
        chunks.append(current)
    return [c.strip("\n") for c in chunks if c.strip()]


def split(text: str, limit: int, measure: Measure = utf8, max_parts: int = MAX_PARTS) -> Parts:
    """`text` in at most `max_parts` parts of at most `limit` (as `measure` counts)."""
    chunks = _chunks(text, limit, measure) or [""]
    if len(chunks) <= max_parts:
        return Parts(chunks, False)
    kept = chunks[:max_parts]
    last = _chunks(kept[-1], limit - measure(SHORTENED) - 1, measure)[0]
    kept[-1] = f"{last}\n{SHORTENED}"
    return Parts(kept, True)


_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+", re.MULTILINE)
_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1")


def plain(markdown: str) -> str:
    """Markdown as a plain-text reader sees it: no heading marks, no bold markers."""
    return _EMPHASIS.sub(r"\2", _HEADING.sub("", markdown))
