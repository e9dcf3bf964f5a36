"""The market as a whole on one session: its breadth counted from a snapshot of every listed
stock (advancers, decliners, limit-up and limit-down counts, turnover), the industry boards'
moves, and the index benchmarks' closes. Counted here from the source's rows, in `Decimal`:
a limit price is the previous close times one plus the board's limit, rounded to the fen."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from pixiu_cli.market.securities import daily_limit

FEN = Decimal("0.01")


@dataclass(frozen=True)
class SpotRow:
    """One stock in a whole-market snapshot."""

    code: str
    name: str
    price: Decimal | None  # None: no trade (suspended)
    previous_close: Decimal | None
    amount: Decimal | None  # yuan traded


@dataclass(frozen=True)
class Breadth:
    session: str  # the session the snapshot describes
    taken_at: str  # when it was taken
    source: str
    closed: bool  # taken after that session's close (else: intraday)
    stocks: int  # with a price
    advancers: int
    decliners: int
    flat: int
    suspended: int
    limit_up: int
    limit_down: int
    turnover: Decimal  # yuan


@dataclass(frozen=True)
class IndustryMove:
    session: str
    code: str
    name: str
    change: Decimal | None  # fraction
    advancers: int | None
    decliners: int | None
    leader: str | None
    leader_change: Decimal | None  # fraction
    source: str
    taken_at: str


@dataclass(frozen=True)
class Snapshot:
    breadth: Breadth
    industries: tuple[IndustryMove, ...]
    refused: tuple[str, ...] = ()  # a line per row the plausibility gate kept out (not stored)


@dataclass(frozen=True)
class IndexMove:
    key: str  # sh000300
    name: str
    date: str
    close: Decimal
    previous_date: str | None
    previous_close: Decimal | None
    source: str | None

    @property
    def change(self) -> Decimal | None:
        if self.previous_close is None or self.previous_close <= 0:
            return None
        return self.close / self.previous_close - 1


@dataclass(frozen=True)
class Discontinued:
    """A series the exchanges no longer publish: said so, never shown as zeros."""

    name: str
    since: str
    note: str


def _no_limit(row: SpotRow) -> bool:
    # N: the first session; C: a registration-reform listing's first five sessions.
    return row.name.startswith(("N", "C"))


def limit_prices(row: SpotRow, session: str) -> tuple[Decimal, Decimal] | None:
    """(limit-down, limit-up) prices of the session, from the previous close."""
    if row.previous_close is None or row.previous_close <= 0 or _no_limit(row):
        return None
    limit = Decimal(str(daily_limit(row.code, session, "ST" in row.name.upper())))
    up = (row.previous_close * (1 + limit)).quantize(FEN, ROUND_HALF_UP)
    down = (row.previous_close * (1 - limit)).quantize(FEN, ROUND_HALF_UP)
    return down, up


def breadth_of(rows: Iterable[SpotRow], session: str, taken_at: str, source: str, closed: bool) -> Breadth:
    """Counts over the rows: a stock with no price is suspended; one at or beyond its limit
    price is limit-up or limit-down (and an advancer or decliner too)."""
    counts = dict.fromkeys(("stocks", "advancers", "decliners", "flat", "suspended", "limit_up", "limit_down"), 0)
    turnover = Decimal(0)
    for row in rows:
        if row.price is None or row.price <= 0 or row.previous_close is None:
            counts["suspended"] += 1
            continue
        counts["stocks"] += 1
        turnover += row.amount or 0
        side = (
            "advancers" if row.price > row.previous_close else "decliners" if row.price < row.previous_close else "flat"
        )
        counts[side] += 1
        limits = limit_prices(row, session)
        if limits and row.price >= limits[1]:
            counts["limit_up"] += 1
        elif limits and row.price <= limits[0]:
            counts["limit_down"] += 1
    return Breadth(session, taken_at, source, closed, turnover=turnover, **counts)
