"""MarketData: the read side analytics, valuation, charts and the CLI share —
`bars(symbol, adjust=...)` adjusts on read, and `status` says how fresh each series is."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlite_utils import Database

from pixiu_cli.domain.market import BarSeries
from pixiu_cli.market.adjust import ADJUST_MODES
from pixiu_cli.market.adjust import adjust as adjust_series
from pixiu_cli.market.calendar import TradingCalendar
from pixiu_cli.store.market import MarketStore
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


class MarketData:
    def __init__(self, db: Database):
        self.store = MarketStore(db)
        self.master = SecurityMaster(db)

    def bars(self, symbol: str, adjust: str = "qfq", start: str | None = None, end: str | None = None) -> BarSeries:
        """Bars in [start, end], adjusted on read. Only the window is read: each event's
        ratio needs just the close before its ex-date (one indexed probe per event, also for
        events outside the window, which still move a qfq or hfq factor)."""
        if adjust not in ADJUST_MODES:
            raise ValueError(f"adjust must be one of {ADJUST_MODES}")
        series = self.store.bars(symbol, start, end)
        if adjust == "none":
            return series
        actions = self.store.actions(symbol)
        prev_close = {}
        for a in actions:
            if not a.ratio and a.ex_date not in prev_close:
                before = self.store.close_before(symbol, a.ex_date)
                if before:
                    prev_close[a.ex_date] = before[1]
        return adjust_series(series, actions, adjust, prev_close)

    def status(self, now: datetime, symbols: list[str] | None = None) -> list[SeriesStatus]:
        calendar = TradingCalendar(self.store)
        out = []
        for info in self.store.series(symbols):
            security = self.master.get(info.symbol)
            days = calendar.stale_days(info.last, now)
            out.append(
                SeriesStatus(
                    info.symbol,
                    security.name if security else None,
                    info.rows,
                    info.first,
                    info.last,
                    info.source,
                    info.origin,
                    info.file_adjusted,
                    info.last_sync_at,
                    info.last_error,
                    days,
                    info.stale or days is None or days > 0,
                )
            )
        return out
