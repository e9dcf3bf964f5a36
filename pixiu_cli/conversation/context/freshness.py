"""How old is too old: each class of injected item has a freshness limit (config.toml
[context], `*_fresh_days`; signals count trading days). An item past its limit is still
injected, marked `已过期 N 天` (N: days since it went past the limit; `N 个交易日` for a
limit in trading days) and listed after the
fresh items of its section, so trimming drops it first."""

from __future__ import annotations

from datetime import date, timedelta

from pixiu_cli.conversation.context.values import sessions_said
from pixiu_cli.kernel.limits import FreshnessRule
from pixiu_cli.market.trading_days import CalendarEnd, calendar_end, knows, next_trading_day, sessions_between


def expired_days(as_of: date | None, today: date, rule: FreshnessRule) -> int | None:
    """Days since an item dated `as_of` went past `rule`, or None while it is fresh (or has
    no limit, or no readable date: that one shows 日期未知 instead)."""
    if as_of is None or rule.days <= 0 or as_of >= today:
        return None
    try:
        if rule.trading:
            expiry = as_of
            for _ in range(max(1, round(rule.days))):
                expiry = _next_session_or_weekday(expiry)
        else:
            expiry = as_of + timedelta(days=rule.days)
    except OverflowError:
        return None
    overdue = (today - expiry).days
    return overdue if overdue > 0 else None


def _next_session_or_weekday(d: date) -> date:
    # Past the calendar's end a signal still has to age: a limit counted in weekdays there
    # marks it stale at most a holiday week early, where no limit at all would keep it
    # fresh forever. Nothing here is shown as a session date.
    try:
        return next_trading_day(d)
    except CalendarEnd:
        d += timedelta(days=1)
        while d.weekday() >= 5:
            d += timedelta(days=1)
        return d


def stale_label(as_of: date | None, today: date, rule: FreshnessRule) -> str | None:
    """`已过期 N 天`, or for a limit counted in trading days `已过期 N 个交易日` (N sessions
    since the limit, not calendar days: a weekend adds none; `至少 N` past the calendar's end)."""
    overdue = expired_days(as_of, today, rule)
    if overdue is None:
        return None
    if rule.trading:
        said = _sessions_overdue(today - timedelta(days=overdue), today)
        return said if said is not None else f"已过期 {overdue} 天"
    return f"已过期 {overdue} 天"


def _sessions_overdue(expiry: date, today: date) -> str | None:
    """The sessions since the expiry; past the calendar's end those up to it, said as a floor
    (`至少 N 个交易日`); None when the calendar knows none of them (calendar days then)."""
    end, at_least = today, False
    if not knows(today):
        end, at_least = calendar_end(), True
    try:
        counted = sessions_between(expiry, end) if end > expiry else 0
    except (CalendarEnd, OverflowError, ValueError):
        return None
    if at_least and counted == 0:
        return None
    return sessions_said("已过期", max(1, counted), at_least)
