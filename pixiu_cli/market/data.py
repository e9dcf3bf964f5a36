"""MarketData: the read side analytics, valuation, charts and the CLI share —
`bars(symbol, adjust=...)` adjusts on read, and `status` says how fresh each series is."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from pixiu_cli.market.bars import (
    ADJUST_MODES,
    MIN_DIVIDEND_GAP,
    BarSeries,
    SuspectGap,
    benchmark_for,
    market_wide_days,
    series_dividend_gaps,
    series_gaps,
)
from pixiu_cli.market.bars import adjust as adjust_series
from pixiu_cli.market.calendar import TradingCalendar, beyond_calendar
from pixiu_cli.market.securities import shipped_security_list
from pixiu_cli.market.security_master import security_name
from pixiu_cli.market.source_by_name import SOURCE_NAMES
from pixiu_cli.market.trading_days import trading_calendar

if TYPE_CHECKING:
    from pixiu_cli.market.handle import Market


WHOLE_MARKET = 100  # a status of more series reads every bar once for the market's gaps


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
    stale_days: int | None  # trading sessions since the last bar (up to the calendar's end)
    stale: bool  # behind the calendar, or the last sync failed
    missing_actions: int = 0  # ex-dividend-like gaps no stored action covers
    calendar_note: str | None = None  # 交易日历只到 …: the count stops at the calendar's end


class MarketData:
    def __init__(self, market: Market, keep_gaps: bool = False):
        """keep_gaps: a market-wide day's counts, once probed, are kept in the store for the
        next refresh (a reader such as `data status` only reads kept ones)."""
        self.store = market.bars
        self.master = market.securities
        self.keep_gaps = keep_gaps
        # version, day → gaps, and whether every day is in it
        self._market_gaps: tuple[int, dict[str, tuple[int, int]], bool] | None = None

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

    def reference_notes(self) -> list[str]:
        """What `data status` says about the security list and the trading calendar."""

        shipped = shipped_security_list()
        lines = [f"证券列表：内置 {len(shipped):,} 只股票，截至 {shipped.as_of}"]
        synced = [s for s in self.master.all() if s.kind == "stock" and s.source in SOURCE_NAMES]
        if synced:
            stamp = max(s.updated_at or "" for s in synced)[:10]
            lines[0] += f"；数据源同步 {len(synced):,} 只（{stamp}）"
        calendar = trading_calendar()
        refreshed = f"，{calendar.refreshed_by} 更新" if calendar.refreshed_by else ""
        lines.append(f"交易日历：{calendar.first.isoformat()} 至 {calendar.last.isoformat()}{refreshed}")
        lines += [f"节假日文件有误：{problem}" for problem in calendar.problems]
        return lines

    def missing_actions(self, symbol: str, start: str = "", end: str = "9999") -> list[SuspectGap]:
        """Suspected ex-dividend days that no stored action covers (market/gaps.py), within
        [start, end] (each day judged against its whole season, as over the whole series)."""
        actions = self.store.actions(symbol)
        if not actions:
            return []
        series = self.store.bars(symbol)
        years = (start[:4] or "0000", end[:4])
        found = series_dividend_gaps(series, actions, _OthersOpenedLow(self, series), years)
        return [g for g in found if start <= g.date <= end]

    def suspected_gaps(self, symbol: str) -> list[SuspectGap]:
        """Every day an import would warn of (a fall past the limit no action explains) and
        every dividend-like gap no stored action covers: what `data status` counts."""
        bars = self.store.bars(symbol)
        falls = series_gaps(bars, self.store.actions(symbol))
        seen = {g.date for g in falls}
        return falls + [g for g in self.missing_actions(symbol) if g.date not in seen]

    def market_open_gaps(self, day: str) -> tuple[int, int]:
        """store.open_gaps_on(day) over every series, kept per market version: the symbols a
        refresh profiles ask about the same days."""
        version = self.store.version()
        if self._market_gaps is None or self._market_gaps[0] != version:
            self._market_gaps = (version, {}, False)
        _, days, every_day = self._market_gaps
        if day not in days and not every_day:
            days[day] = self.store.open_gaps_on(day, MIN_DIVIDEND_GAP, keep=self.keep_gaps)
        return days.get(day, (0, 0))

    def _read_every_days_gaps(self) -> None:
        """All of market_open_gaps in one read of every bar: what a question about every
        series (`data status`) asks would be a probe of every series for most season days."""
        self._market_gaps = (self.store.version(), self.store.open_gaps_by_date(MIN_DIVIDEND_GAP), True)

    def status(self, now: datetime, symbols: list[str] | None = None) -> list[SeriesStatus]:
        calendar = TradingCalendar(self.store)
        note = beyond_calendar(now)
        out, listed = [], self.store.series(symbols)
        if len(listed) > WHOLE_MARKET:
            self._read_every_days_gaps()
        for info in listed:
            index = benchmark_for(info.symbol)
            days = calendar.stale_days(info.last, now)
            out.append(
                SeriesStatus(
                    info.symbol,
                    index.name if index else security_name(self.master, info.symbol),
                    info.rows,
                    info.first,
                    info.last,
                    info.source,
                    info.origin,
                    info.file_adjusted,
                    info.last_sync_at,
                    info.last_error,
                    days,
                    info.stale or days is None or days > 0 or note is not None,
                    len(self.suspected_gaps(info.symbol)),
                    note,
                )
            )
        return out


class _OthersOpenedLow:
    """`day in it`: a market-wide day (gaps.market_wide_days) for the series other than this
    one, the market's figures for that day read when first asked, this series' own taken out."""

    def __init__(self, data: MarketData, series: BarSeries):
        self.data, self.series = data, series

    def __contains__(self, day: object) -> bool:
        gapped, present = self.data.market_open_gaps(str(day))
        s = self.series
        i = bisect_left(s.dates, day)
        if 0 < i < len(s) and s.dates[i] == day and s.close[i - 1] > 0:  # its own bar, as the store counts it
            gapped, present = gapped - (s.open[i] <= s.close[i - 1] * (1 - MIN_DIVIDEND_GAP)), present - 1
        return bool(market_wide_days({str(day): (gapped, present)}))
