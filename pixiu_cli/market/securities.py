"""The security master's entries (codes, names, boards and kinds of every security pixiu can
name) and the user's aliases for them.

The shipped list of every listed A-share stock (`data/securities/stock_basic.csv`, its
README gives the provenance): code, the exchange's name as quoted and the name people type,
board, listing date and risk-warning status, known offline in a fresh home. Read on first
use; name matching builds on it, it does not match names itself."""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from functools import cache, cached_property

from pixiu_cli.kernel.resources import data_dir
from pixiu_cli.market.boards import board_for


@dataclass(frozen=True)
class Security:
    symbol: str  # six ASCII digits
    name: str
    kind: str = "stock"  # stock | index
    board: str | None = None  # main | chinext | star | bse (None when unknown)
    list_date: str | None = None
    status: str | None = None  # listed | delisted | suspended (None when unknown)
    is_st: bool = False
    source: str | None = None  # import | baostock | akshare | csv | shipped | ...
    updated_at: str | None = None


# Alias.source of a name a later market list replaced (the stock was renamed).
FORMER_NAME_SOURCE = "former"


@dataclass(frozen=True)
class Alias:
    alias: str
    symbol: str
    source: str  # user | shipped | former
    created_at: str | None = None


SHIPPED_FILE = ("securities", "stock_basic.csv")
SHIPPED_SOURCE = "shipped"

# S: share reform not completed; ST / *ST: risk warning; N / C: first day / first five days
# of trading (only before a Chinese character: TCL科技 and GQY视讯 are names, not marks);
# -U -W -D on STAR: not yet profitable, weighted voting rights, depositary receipts.
_NAME = re.compile(
    r"^(?P<reform>S(?=\*?ST|[^\x00-\x7f]))?(?P<st>\*ST|ST)?(?P<debut>[NC](?=[^\x00-\x7f]))?"
    r"(?P<base>.+?)(?:-(?P<flags>[UWD]+))?$"
)


@dataclass(frozen=True)
class NameParts:
    short_name: str  # what people type: 天微, 德力佳, 寒武纪
    st: str | None = None  # "ST" | "*ST"
    debut: str | None = None  # "N" | "C"
    reform_pending: bool = False
    flags: frozenset[str] = field(default_factory=frozenset)  # U, W, D


@dataclass(frozen=True)
class ListedStock:
    code: str  # six ASCII digits
    exchange: str  # SH | SZ | BJ
    full_name: str  # the exchange's name as quoted: *ST天微, C德力佳, 寒武纪-U
    short_name: str
    board: str  # main | chinext | star | bse
    list_date: str | None
    st: str | None  # "ST" | "*ST" | None
    debut: str | None  # "N" | "C" | None
    flags: frozenset[str] = frozenset()  # U, W, D (STAR)
    area: str | None = None
    industry: str | None = None

    @property
    def is_st(self) -> bool:
        return self.st is not None


@dataclass(frozen=True)
class SecurityList:
    as_of: str  # the newest listing date in the list: it knows nothing listed later
    stocks: tuple[ListedStock, ...]

    def get(self, code: str) -> ListedStock | None:
        return self._by_code.get(code)

    @cached_property
    def _by_code(self) -> dict[str, ListedStock]:
        # On the instance: a cache keyed on the list hashed all 5,448 rows on every get(),
        # 0.1 s per lookup, three lookups per symbol a profile refresh computes.
        return {s.code: s for s in self.stocks}

    def __len__(self) -> int:
        return len(self.stocks)


def parse_name(name: str) -> NameParts:
    """The marks in an exchange's quoted name and the name without them."""
    text = name.strip()
    match = _NAME.match(text)
    if not match:
        return NameParts(text)
    return NameParts(match["base"], match["st"], match["debut"], bool(match["reform"]), frozenset(match["flags"] or ""))


def _stock(row: dict[str, str]) -> ListedStock | None:
    code = (row.get("symbol") or "").strip()
    name = (row.get("name") or "").strip()
    if not (len(code) == 6 and code.isascii() and code.isdigit()) or not name:
        return None
    parts = parse_name(name)
    exchange = (row.get("ts_code") or "").rpartition(".")[2].upper() or None
    return ListedStock(
        code,
        exchange or "",
        name,
        parts.short_name,
        board_for(code),
        (row.get("list_date") or "").strip() or None,
        parts.st,
        parts.debut,
        parts.flags,
        (row.get("area") or "").strip() or None,
        (row.get("industry") or "").strip() or None,
    )


@cache
def shipped_security_list() -> SecurityList:
    path = data_dir().joinpath(*SHIPPED_FILE)
    with path.open(encoding="utf-8", newline="") as handle:
        stocks = tuple(s for s in map(_stock, csv.DictReader(handle)) if s is not None)
    as_of = max((s.list_date for s in stocks if s.list_date), default="")
    return SecurityList(as_of, stocks)


@dataclass(frozen=True)
class ListedName:
    code: str
    full_name: str  # as quoted: *ST天微
    short_name: str  # as typed: 天微


# A quoted name that cannot carry a mark is its own typed name (most rows: parse_name is
# skipped for them, which halves the read).
_MARKED = re.compile(r"^[SNC*]|-[UWD]+$")


@cache
def shipped_names() -> tuple[ListedName, ...]:
    """Every shipped stock's code and names, all name matching needs: read with a plain csv
    reader and no ListedStock rows, since every process that matches a name reads it."""
    path = data_dir().joinpath(*SHIPPED_FILE)
    with path.open(encoding="utf-8", newline="") as handle:
        rows = csv.reader(handle)
        header = next(rows, [])
        code_at, name_at = header.index("symbol"), header.index("name")
        out = []
        for row in rows:
            code, name = row[code_at].strip(), row[name_at].strip()
            if len(code) == 6 and code.isascii() and code.isdigit() and name:
                out.append(ListedName(code, name, parse_name(name).short_name if _MARKED.search(name) else name))
    return tuple(out)


def as_securities(listing: SecurityList) -> list[Security]:
    """The list as security-master rows (source `shipped`, dated by the list's date)."""
    return [
        Security(s.code, s.full_name, "stock", s.board, s.list_date, "listed", s.is_st, SHIPPED_SOURCE, listing.as_of)
        for s in listing.stocks
    ]
