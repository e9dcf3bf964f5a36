"""Market data: unadjusted daily bars (one by one, or one symbol's as columns), corporate
actions, the provenance of a stored series, and what one import or sync writes. Adjustment
happens above the store (pixiu_cli/market/adjust.py), never in a stored row."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

# How a price file counts its volume: read from the file (auto), in shares, or in lots of 100.
VOLUME_UNITS = ("auto", "shares", "lots")


@dataclass(frozen=True)
class Bar:
    date: str  # YYYY-MM-DD
    open: float
    high: float
    low: float
    close: float
    volume: float  # shares
    amount: float | None = None  # yuan
    trade_status: int = 1  # 1 traded, 0 suspended (a source may list suspended days)
    is_st: bool = False


@dataclass(frozen=True)
class BarSeries:
    """One symbol's daily bars as columns (oldest first), so analytics can hand a column
    straight to numpy (`numpy.asarray(series.close)`) without a per-row loop."""

    symbol: str
    adjust: str  # none | qfq | hfq
    dates: tuple[str, ...] = ()
    open: tuple[float, ...] = ()
    high: tuple[float, ...] = ()
    low: tuple[float, ...] = ()
    close: tuple[float, ...] = ()
    volume: tuple[float, ...] = ()
    amount: tuple[float | None, ...] = ()
    trade_status: tuple[int, ...] = ()
    is_st: tuple[bool, ...] = ()

    def __len__(self) -> int:
        return len(self.dates)

    def bars(self) -> list[Bar]:
        return [
            Bar(*row)
            for row in zip(
                self.dates,
                self.open,
                self.high,
                self.low,
                self.close,
                self.volume,
                self.amount,
                self.trade_status,
                self.is_st,
            )
        ]


@dataclass(frozen=True)
class CorporateAction:
    symbol: str
    ex_date: str
    cash_per_share: float = 0.0  # yuan paid per share (10派12 → 1.2)
    shares_per_share: float = 0.0  # bonus + transferred shares per share (10送2 → 0.2)
    ratio: float | None = None  # the source's price ratio before/after, when it gave one
    source: str = "import"
    method: str = "cash_shares"  # cash_shares | factor
    fetched_at: str | None = None


@dataclass(frozen=True)
class SeriesInfo:
    symbol: str
    rows: int
    first: str | None
    last: str | None
    source: str | None
    origin: str | None
    file_adjusted: str | None
    volume_unit: str | None
    last_sync_at: str | None
    last_error: str | None
    stale: bool


@dataclass(frozen=True)
class SeriesWrite:
    """Everything one import or sync writes for one symbol, committed together."""

    symbol: str
    bars: Sequence[Bar] | BarSeries  # an import writes columns as parsed, a sync its Bars
    source: str
    at: str
    origin: str | None = None
    file_adjusted: str = "none"
    volume_unit: str = "shares"
    actions: Sequence[CorporateAction] = field(default_factory=tuple)
    replace_actions_from: str | None = None  # drop this source's stored actions first
