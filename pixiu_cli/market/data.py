"""MarketData: the read side analytics, valuation, charts and the CLI share —
`bars(symbol, adjust=...)` adjusts on read, and `status` says how fresh each series is."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, replace
from datetime import datetime

from sqlite_utils import Database

from pixiu_cli.market.adjust import ADJUST_MODES, adjust
from pixiu_cli.market.calendar import TradingCalendar
from pixiu_cli.store.market import BarSeries, MarketStore
from pixiu_cli.store.securities import SecurityMaster


@dataclass(frozen=True)
class SeriesStatus:
    symbol: str
    name: str | None
    rows: int
    first: str | None
    last: str | None
    source: str | None
    origin: str | None
    file_adjusted: str | None
    last_sync: str | None
    last_error: str | None
    stale_days: int | None  # trading sessions since the last bar
    stale: bool  # behind the calendar, or the last sync failed


def _slice(series: BarSeries, start: str | None, end: str | None) -> BarSeries:
    lo = bisect_left(series.dates, start) if start else 0
    hi = bisect_right(series.dates, end) if end else len(series.dates)
    if lo == 0 and hi == len(series.dates):
        return series
    return replace(series, **{name: getattr(series, name)[lo:hi] for name in
                              ("dates", "open", "high", "low", "close", "volume", "amount", "trade_status", "is_st")})


class MarketData:
    def __init__(self, db: Database):
        self.store = MarketStore(db)
        self.master = SecurityMaster(db)

    def bars(self, symbol: str, adjust_mode: str = "qfq", start: str | None = None,
             end: str | None = None) -> BarSeries:
        """Bars in [start, end], adjusted on read. The whole history is read because a qfq
        factor depends on every later event and each ratio on the close before it."""
        if adjust_mode not in ADJUST_MODES:
            raise ValueError(f"adjust must be one of {ADJUST_MODES}")
        series = self.store.bars(symbol)
        if adjust_mode != "none":
            series = adjust(series, self.store.actions(symbol), adjust_mode)
        return _slice(series, start, end)

    def status(self, now: datetime, symbols: list[str] | None = None) -> list[SeriesStatus]:
        calendar = TradingCalendar(self.store)
        out = []
        for info in self.store.series(symbols):
            security = self.master.get(info.symbol)
            days = calendar.stale_days(info.last, now)
            out.append(SeriesStatus(info.symbol, security.name if security else None, info.rows, info.first,
                                    info.last, info.source, info.origin, info.file_adjusted, info.last_sync_at,
                                    info.last_error, days, info.stale or days is None or days > 0))
        return out
