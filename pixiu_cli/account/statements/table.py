"""A statement's text as rows of cells: comma-separated, tab-separated, fixed-width columns
aligned with spaces (通达信 .txt), or an HTML table saved as ".xls". Each row keeps its line
number in the file, for error messages."""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from html.parser import HTMLParser


@dataclass(frozen=True)
class Row:
    line: int  # 1-based, in the file
    cells: tuple[str, ...]


# Excel-forced text (="000333"), quotes, and the full-width spaces some clients pad with
_FORCED = re.compile(r'^="?(.*?)"?$')


def clean(cell: str) -> str:
    """The cell as one spelling: NFKC before anything reads it, so ６００５１９ is 600519 and
    １００ is 100 (one stock, one number, however the client widened them)."""
    # NFKC leaves ASCII as it is: most cells of a large statement skip it
    text = cell.strip() if cell.isascii() else unicodedata.normalize("NFKC", cell).strip()
    if text.startswith("="):
        text = _FORCED.match(text).group(1)
    return text.strip("'\" ")


class _TableParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag) -> None:
        if tag in ("td", "th") and self._cell is not None:
            if not self.rows:
                self.rows.append([])
            self.rows[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _html_rows(text: str) -> list[Row]:
    parser = _TableParser()
    parser.feed(text)
    return [Row(i + 1, tuple(clean(c) for c in cells)) for i, cells in enumerate(parser.rows) if any(cells)]


def _separator(lines: list[str]) -> str | None:
    """Tab or comma when most non-empty lines use it; None for space-aligned columns."""
    filled = [line for line in lines if line.strip()]
    for sep in ("\t", ","):
        if filled and sum(sep in line for line in filled) * 2 >= len(filled):
            return sep
    return None


def _aligned(line: str, spans: list[tuple[int, int]]) -> tuple[str, ...]:
    """A space-aligned line cut at the header's columns, so an empty cell stays empty.
    Clients align in GBK bytes (a Chinese character is two columns), so positions are
    measured in those."""
    cells = [""] * len(spans)
    raw = line.encode("gb18030", errors="replace")
    for match in re.finditer(rb"\S+", raw):
        start, end = match.span()
        overlaps = [min(end, e) - max(start, s) for s, e in spans]
        best = max(range(len(spans)), key=lambda i: (overlaps[i], -abs((start + end) - sum(spans[i]))))
        if overlaps[best] <= 0:
            best = min(range(len(spans)), key=lambda i: abs((start + end) - sum(spans[i])))
        text = match.group().decode("gb18030", errors="replace")
        cells[best] = f"{cells[best]} {text}".strip()
    return tuple(cells)


def _split(line: str, sep: str | None) -> list[str]:
    if sep == ",":
        if line and not line.startswith('"') and ',"' not in line:
            # no field opens with a quote: csv would read every quote as text, as split does
            return line.split(",")
        return next(csv.reader(io.StringIO(line)), [])
    if sep == "\t":
        return line.split("\t")
    return line.split()


def rows(text: str, is_header: Callable[[tuple[str, ...]], bool]) -> list[Row]:
    """The rows of `text`; `is_header` tells the header row, whose columns cut the rows
    after it when the file aligns them with spaces."""
    if looks_like_html(text):
        return _html_rows(text)
    lines = text.splitlines()
    return list(line_rows(lines, _separator(lines), is_header))


def looks_like_html(text: str) -> bool:
    return bool(re.search(r"<\s*table", text[:5000], re.IGNORECASE))


def separator(lines: list[str]) -> str | None:
    """Tab, comma or None (space-aligned) for a file whose first lines are `lines`."""
    return _separator(lines)


def line_rows(lines: Iterable[str], sep: str | None, is_header: Callable[[tuple[str, ...]], bool]) -> Iterator[Row]:
    """`rows` of lines read one at a time, their separator known."""
    spans: list[tuple[int, int]] | None = None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if spans is not None:
            yield Row(number, tuple(map(clean, _aligned(line, spans))))
            continue
        cells = tuple(map(clean, _split(line, sep)))
        yield Row(number, cells)
        if sep is None and is_header(cells):
            raw = line.encode("gb18030", errors="replace")
            spans = [m.span() for m in re.finditer(rb"\S+", raw)]
