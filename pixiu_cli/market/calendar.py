"""The trading calendar over stored data: the days a source said were trading days, else the
shipped calendar. Freshness is measured in trading days, so a Monday morning does not call
Friday's close stale; past the calendar's last known day the count stops there and says so."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from pixiu_cli.market.store import MarketStore
from pixiu_cli.market.trading_days import (
    MARKET_CLOSE,
    SHANGHAI,
    calendar_end,
    is_trading_day,
    knows,
    previous_trading_day,
    sessions_between,
    trading_calendar,
)


def last_complete_session(now: datetime) -> date:
    """The newest trading day whose close has happened at `now` (Beijing time); past the
    calendar's end, its last session (beyond_calendar(now) says so)."""
    local = now.astimezone(SHANGHAI)
    day = local.date()
    if knows(day) and is_trading_day(day) and local.time() >= MARKET_CLOSE:
        return day
    return previous_trading_day(day)


def beyond_calendar(now: datetime) -> str | None:
    """`交易日历只到 …` when today's status is unknown, else None."""
    day = now.astimezone(SHANGHAI).date()
    return None if knows(day) else f"交易日历只到 {calendar_end().isoformat()}"


class TradingCalendar:
    def __init__(self, market: MarketStore):
        self.market = market

    def trading_days_between(self, after: str, until: str) -> int:
        """Trading days d with after < d ≤ until (counted up to the calendar's end)."""
        if until <= after:
            return 0
        known = [d for d in self.market.trading_days(after, until) if d > after]
        start = date.fromisoformat(known[-1] if known else after)  # the source's list wins where it reaches
        end = min(date.fromisoformat(until), calendar_end())
        return len(known) + (sessions_between(start, end) if end > start else 0)

    def stale_days(self, last_bar: str | None, now: datetime) -> int | None:
        """Trading sessions closed since the last stored bar (0 = up to date)."""
        if last_bar is None:
            return None
        return self.trading_days_between(last_bar, last_complete_session(now).isoformat())


def calendar_mismatches(source_days: list[str], start: str, end: str) -> list[str]:
    """Where a source's trading days in [start, end] disagree with the shipped calendar
    (checked up to the calendar's last known day)."""
    if not source_days:
        return []
    said = set(source_days)
    out = []
    day = max(date.fromisoformat(start), trading_calendar().first)
    last = min(date.fromisoformat(end), calendar_end())
    while day <= last:
        text = day.isoformat()
        if text in said and not is_trading_day(day):
            out.append(f"{text} 来源为交易日，内置日历为休市")
        elif text not in said and is_trading_day(day):
            out.append(f"{text} 内置日历为交易日，来源为休市")
        day += timedelta(days=1)
    return out
