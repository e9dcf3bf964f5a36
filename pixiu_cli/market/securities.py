"""Boards, their daily price limits by date, and their order sizes: what a normal day's move
can be (so a bigger gap with no corporate action to explain it is reported as 疑似除权除息)
and how many shares an order may hold.

A new listing's first sessions follow its board's rules on its listing day (`listing_free_sessions`).
Not modelled: the first day's band against the issue price before the registration reforms
(+44% / −36%: the bars carry no issue price, and no order can fill on a listing day, since no
close precedes it), the call-auction rules of a debut, and the tax on dividends (it depends
on how long the shares were held).

The security master's entries (codes, names, boards and kinds of every security pixiu can
name) and the user's aliases for them.

The shipped list of every listed A-share stock (`data/securities/stock_basic.csv`, its
README gives the provenance): code, the exchange's name as quoted and the name people type,
board, listing date and risk-warning status, known offline in a fresh home. Read on first
use; name matching builds on it, it does not match names itself."""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache

from pixiu_cli.kernel.resources import data_dir

CHINEXT_20PCT_FROM = "2020-08-24"  # ChiNext registration reform: ±20% from this day
# Main-board risk-warning stocks (ST, *ST) moved from ±5% to the main board's ±10%: the
# exchanges proposed it on 2025-06-27; it has been in force since 2026-07-06.
MAIN_ST_10PCT_FROM = "2026-07-06"

# (board, for risk-warning stocks, in force from, limit): the latest row in force wins.
LIMITS: tuple[tuple[str, bool, str, float], ...] = (
    ("main", False, "1996-12-16", 0.10),
    ("main", True, "1998-04-22", 0.05),
    ("main", True, MAIN_ST_10PCT_FROM, 0.10),
    ("chinext", False, "2009-10-30", 0.10),
    ("chinext", True, "2009-10-30", 0.05),
    ("chinext", False, CHINEXT_20PCT_FROM, 0.20),
    ("chinext", True, CHINEXT_20PCT_FROM, 0.20),
    ("star", False, "2019-07-22", 0.20),
    ("star", True, "2019-07-22", 0.20),
    ("bse", False, "2021-11-15", 0.30),
    ("bse", True, "2021-11-15", 0.30),
)


# The registration reforms, by the first listing day they governed: from it a new listing
# trades without a price limit for its first five sessions. Before it, the first day was
# capped against the issue price (+44% / −36%) and the board's limit applied from day two.
# The BSE has lifted the limit on the first day only since its first session.
LISTING_REFORM_FROM = {"star": "2019-07-22", "chinext": CHINEXT_20PCT_FROM, "main": "2023-04-10"}
FREE_SESSIONS_AFTER_REFORM = 5


# Order sizes by board, from the exchanges' trading rules: (board, in force from, the smallest
# buy order, the step above it). The SSE's and SZSE's 交易规则: buys in lots of 100 on the
# main boards and 创业板; the SSE's 科创板 trading rules (2019): at least 200 shares, then
# single shares; the BSE's trading rules (2021): at least 100, then single shares. On every
# board the part of a holding under one order (余额不足的部分) is sold in one order at once.
LOTS: tuple[tuple[str, str, int, int], ...] = (
    ("main", "1990-12-19", 100, 100),
    ("chinext", "2009-10-30", 100, 100),
    ("star", "2019-07-22", 200, 1),
    ("bse", "2021-11-15", 100, 1),
)


@dataclass(frozen=True)
class OrderSize:
    minimum: int  # shares in the smallest buy order
    step: int  # shares an order may grow by above the minimum


def board_for(symbol: str) -> str:
    """main | chinext | star | bse, from the code's prefix."""
    if symbol.startswith(("688", "689")):
        return "star"
    if symbol.startswith("30"):  # 300, 301 and 302 (302132 中航成飞)
        return "chinext"
    if symbol.startswith(("43", "83", "87", "88", "92")):
        return "bse"
    return "main"


def limit_schedule(symbol: str, is_st: bool = False) -> list[tuple[str, float]]:
    """(in force from, limit) for the stock's board, oldest first."""
    board = board_for(symbol)
    return sorted((start, limit) for b, st, start, limit in LIMITS if b == board and st == is_st)


def daily_limit(symbol: str, day: str, is_st: bool = False) -> float:
    """The board's daily price limit on `day` as a fraction (0.10 for ±10%); before the
    table's first row, its first limit."""
    schedule = limit_schedule(symbol, is_st)
    in_force = [limit for start, limit in schedule if start <= day]
    return in_force[-1] if in_force else schedule[0][1]


def listing_free_sessions(symbol: str, list_date: str) -> int:
    """How many sessions from the listing day trade without a limit against the previous
    close: five for a listing under its board's registration reform, else the first day
    alone (whose band, before the reforms, is set against the issue price)."""
    reform = LISTING_REFORM_FROM.get(board_for(symbol))
    return FREE_SESSIONS_AFTER_REFORM if reform is not None and list_date >= reform else 1


def order_size(symbol: str, day: str = "9999-12-31") -> OrderSize:
    """The board's buy order size on `day` (LOTS; before its first row, that row)."""
    board = board_for(symbol)
    rows = sorted((start, minimum, step) for b, start, minimum, step in LOTS if b == board)
    in_force = [row for row in rows if row[0] <= day] or rows[:1]
    _, minimum, step = in_force[-1]
    return OrderSize(minimum, step)


def odd_part(held: int, size: OrderSize) -> int:
    """The shares of a holding no whole order can sell: under a lot where orders step by
    lots; the whole holding where it is below the minimum order and steps are single shares."""
    if size.step > 1:
        return held % size.step
    return held if held < size.minimum else 0


def fits_order(shares: int, size: OrderSize) -> bool:
    return shares >= size.minimum and (shares - size.minimum) % size.step == 0


def sellable_size(shares: int, held: int, size: OrderSize) -> bool:
    """A sell of `shares` out of `held`: whole orders, the odd part sold at once, or both."""
    odd = odd_part(held, size)
    return fits_order(shares, size) or shares == odd or (shares > odd and fits_order(shares - odd, size))


BOARD_NAMES = {"main": "主板", "chinext": "创业板", "star": "科创板", "bse": "北交所"}


def order_rule(symbol: str, size: OrderSize) -> str:
    """The board's order size in words (主板按 100 股的整数倍买卖)."""
    board = BOARD_NAMES[board_for(symbol)]
    if size.step == size.minimum:
        return f"{board}按 {size.minimum} 股的整数倍买卖"
    return f"{board}每笔至少 {size.minimum} 股，以上按 {size.step} 股递增"


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


@cache
def shipped_industries() -> dict[str, str]:
    """Every shipped stock's industry (the list's own names: 银行, 白酒, 半导体 …), code to
    industry, read with a plain csv reader as `shipped_names` is: the account's risk read
    asks for a handful of codes and should not build every ListedStock row."""
    path = data_dir().joinpath(*SHIPPED_FILE)
    with path.open(encoding="utf-8", newline="") as handle:
        rows = csv.reader(handle)
        header = next(rows, [])
        code_at, industry_at = header.index("symbol"), header.index("industry")
        return {row[code_at].strip(): row[industry_at].strip() for row in rows if row[industry_at].strip()}


@lru_cache(maxsize=1024)
def shipped_name(code: str) -> str | None:
    """One stock's quoted name in the shipped list, as `shipped_names` has it (of two rows of
    one code, the last), found in the file's text: naming one stock the master lacks (every
    stock of a fresh home) should not make ~11,000 rows into objects (~1.2 MiB)."""
    if not (type(code) is str and len(code) == 6 and code.isascii() and code.isdigit()):
        return None
    data = data_dir().joinpath(*SHIPPED_FILE).read_text(encoding="utf-8")
    header = next(csv.reader([data[: data.find("\n")]]), [])
    code_at, name_at = header.index("symbol"), header.index("name")
    at = len(data)
    while (at := data.rfind(code, 0, at)) > 0:
        start, end = data.rfind("\n", 0, at) + 1, data.find("\n", at)
        row = next(csv.reader([data[start : end if end >= 0 else len(data)]]), [])
        if start and len(row) > max(code_at, name_at) and row[code_at].strip() == code and row[name_at].strip():
            return row[name_at].strip()
    return None


def as_securities(listing: SecurityList) -> list[Security]:
    """The list as security-master rows (source `shipped`, dated by the list's date)."""
    return [
        Security(s.code, s.full_name, "stock", s.board, s.list_date, "listed", s.is_st, SHIPPED_SOURCE, listing.as_of)
        for s in listing.stocks
    ]
