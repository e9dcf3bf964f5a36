"""The trading calendar: the days a source said were trading days, else weekdays minus the
shipped exchange holidays. Freshness is measured in trading days, so a Monday morning does
not call Friday's close stale."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from pixiu_cli.market.trading_days import SHANGHAI, holiday_calendar, is_trading_day
from pixiu_cli.store.market import MarketStore

MARKET_CLOSE = time(15, 0)


def last_complete_session(now: datetime) -> date:
    """The newest trading day whose close has happened at `now` (Beijing time)."""
    local = now.astimezone(SHANGHAI)
    day = local.date()
    if is_trading_day(day) and local.time() >= MARKET_CLOSE:
        return day
    day -= timedelta(days=1)
    for _ in range(60):
        if is_trading_day(day):
            return day
        day -= timedelta(days=1)
    return day


class TradingCalendar:
    def __init__(self, market: MarketStore):
        self.market = market

    def trading_days_between(self, after: str, until: str) -> int:
        """Trading days d with after < d ≤ until."""
        if until <= after:
            return 0
        known = self.market.trading_days(after, until)
        known = [d for d in known if d > after]
        start = date.fromisoformat(after) + timedelta(days=1)
        if known:  # the source's list covers up to its last day; rules beyond it
            start = date.fromisoformat(known[-1]) + timedelta(days=1)
        count = len(known)
        day, end = start, date.fromisoformat(until)
        while day <= end:
            count += is_trading_day(day)
            day += timedelta(days=1)
        return count

    def stale_days(self, last_bar: str | None, now: datetime) -> int | None:
        """Trading sessions closed since the last stored bar (0 = up to date)."""
        if last_bar is None:
            return None
        return self.trading_days_between(last_bar, last_complete_session(now).isoformat())


def calendar_mismatches(source_days: list[str], start: str, end: str) -> list[str]:
    """Where a source's trading days in [start, end] disagree with the shipped holidays
    (checked only for the years the shipped file covers)."""
    if not source_days:
        return []
    covered = holiday_calendar().covered_years
    said = set(source_days)
    out = []
    day, last = date.fromisoformat(start), date.fromisoformat(end)
    while day <= last:
        if day.year in covered:
            text = day.isoformat()
            if text in said and not is_trading_day(day):
                out.append(f"{text} 来源为交易日，内置日历为休市")
            elif text not in said and is_trading_day(day):
                out.append(f"{text} 内置日历为交易日，来源为休市")
        day += timedelta(days=1)
    return out
