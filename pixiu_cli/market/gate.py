"""The one plausibility gate every daily bar and corporate action passes before it is stored,
whichever door it came in by (a CSV file, baostock, akshare): a bar must be of a session
that happened (a calendar date, up to today, a trading day in the shipped calendar) with
prices and a volume a quote could have had; an action must have numbers a real one could
have and, where the bars around its ex-date are known, an ex-date open within the daily
limit of its reference price. Each refusal names the source, the symbol, the date and the
field, so a sync can store the rest and say what it left out, and a file import can refuse
the file naming its row."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from pixiu_cli.domain.boards import daily_limit, limit_schedule
from pixiu_cli.domain.market import Bar, BarSeries, CorporateAction
from pixiu_cli.domain.plausible import (
    Problem,
    action_values_problem,
    bar_problem,
    calendar_date,
    day_problem,
    ex_date_problem,
    reference_price,
)
from pixiu_cli.market.trading_days import holiday_name, is_trading_day, knows, trading_calendar

# After a pause longer than this (calendar days) the reopening price carries the pause's
# news, and a resumption may trade without a limit: the ex-date open is then not checked.
RESUMPTION_DAYS = 10
_WEEKEND = ("周六", "周日")


@dataclass(frozen=True)
class Refusal:
    source: str
    symbol: str
    date: str
    problem: Problem

    def line(self) -> str:
        return f"未保存：{self.source} {self.symbol} {self.date} {self.problem.text()}"


def session_problem(day: str, today: date) -> Problem | None:
    """A bar's date: one the calendar has, from the first session to today, on which the
    exchanges were open (as far as the shipped calendar knows: past its end, not guessed)."""
    parsed = calendar_date(day)
    if parsed is None:
        return Problem("日期", f"「{day[:20]}」不是有效的 YYYY-MM-DD 日期")
    if problem := day_problem(parsed, today):
        return Problem("日期", problem)
    if knows(parsed) and not is_trading_day(parsed):
        closed = _WEEKEND[parsed.weekday() - 5] if parsed.weekday() >= 5 else holiday_name(parsed)
        return Problem("日期", f"{day} 是{closed}，交易所休市")
    return None


def off_session(days):
    """session_problem's trading-day test over a numpy column of days since 1970-01-01:
    True where the shipped calendar knows the day and the exchanges were closed."""
    import numpy as np

    calendar = trading_calendar()
    epoch = date(1970, 1, 1)
    closed = np.array([(d - epoch).days for d in calendar.closed], dtype="int64")
    weekend = (days + 3) % 7 >= 5  # 1970-01-01 was a Thursday
    return (days <= (calendar.last - epoch).days) & (weekend | np.isin(days, closed))


def bar_refusal(bar: Bar, today: date) -> Problem | None:
    return session_problem(bar.date, today) or bar_problem(bar)


def screen_bars(source: str, symbol: str, bars: Iterable[Bar], today: date) -> tuple[list[Bar], list[Refusal]]:
    kept, refused = [], []
    for bar in bars:
        problem = bar_refusal(bar, today)
        if problem:
            refused.append(Refusal(source, symbol, bar.date, problem))
        else:
            kept.append(bar)
    return kept, refused


@dataclass(frozen=True)
class PriceColumns:
    """The stock's unadjusted dates, opens, closes and ST flags, oldest first: what the
    ex-date check reads around each action."""

    symbol: str
    dates: Sequence[str]
    opens: Sequence[float]
    closes: Sequence[float]
    st: Sequence[bool]

    @classmethod
    def of_bars(cls, symbol: str, bars: Iterable[Bar]) -> PriceColumns:
        ordered = sorted(bars, key=lambda b: b.date)
        return cls(
            symbol,
            [b.date for b in ordered],
            [b.open for b in ordered],
            [b.close for b in ordered],
            [b.is_st for b in ordered],
        )

    @classmethod
    def merged(cls, symbol: str, stored: BarSeries, bars: Sequence[Bar]) -> PriceColumns:
        """The stored series with a sync's new bars, which win on a date both have."""
        rows = {d: (o, c, st) for d, o, c, st in zip(stored.dates, stored.open, stored.close, stored.is_st)}
        rows.update((b.date, (b.open, b.close, b.is_st)) for b in bars)
        dates = sorted(rows)
        opens, closes, st = zip(*(rows[d] for d in dates)) if dates else ((), (), ())
        return cls(symbol, dates, opens, closes, st)

    def ex_day_problem(self, action: CorporateAction) -> Problem | None:
        i = bisect_left(self.dates, action.ex_date)
        if i == 0:
            return None  # no close before it: nothing to derive a reference price from
        close = self.closes[i - 1]
        cash, shares, ratio = action.cash_per_share, action.shares_per_share, action.ratio
        if not ratio and cash >= close:
            return Problem("每股派现", f"{cash:g} 元不低于除权前收盘价 {close:g} 元")
        on_ex_date = i < len(self.dates) and self.dates[i] == action.ex_date
        limit = self._limit(i) if on_ex_date else None
        return ex_date_problem(
            reference_price(close, cash, shares, ratio), close, self.opens[i] if on_ex_date else None, limit
        )

    def _limit(self, i: int) -> float | None:
        day, before = self.dates[i], self.dates[i - 1]
        if day < limit_schedule(self.symbol)[0][0]:
            return None  # no daily limit yet (A-shares traded without one until 1996-12-16)
        if (date.fromisoformat(day) - date.fromisoformat(before)).days > RESUMPTION_DAYS:
            return None
        return daily_limit(self.symbol, day, self.st[i] or self.st[i - 1])


def ex_date_text_problem(ex_date: str, today: date) -> Problem | None:
    """An ex-date the calendar has, from the first session to tomorrow (an announced one)."""
    parsed = calendar_date(ex_date)
    if parsed is None:
        return Problem("除权除息日", f"「{ex_date[:20]}」不是有效的 YYYY-MM-DD 日期")
    problem = day_problem(parsed, today, days_ahead=1)
    return Problem("除权除息日", problem) if problem else None


def action_refusal(action: CorporateAction, prices: PriceColumns | None, today: date) -> Problem | None:
    problem = ex_date_text_problem(action.ex_date, today)
    problem = problem or action_values_problem(action.cash_per_share, action.shares_per_share, action.ratio)
    if problem is None and prices is not None:
        problem = prices.ex_day_problem(action)
    return problem


def screen_actions(
    source: str, actions: Iterable[CorporateAction], prices: PriceColumns | None, today: date
) -> tuple[list[CorporateAction], list[Refusal]]:
    kept, refused = [], []
    for action in actions:
        problem = action_refusal(action, prices, today)
        if problem:
            refused.append(Refusal(source, action.symbol, action.ex_date, problem))
        else:
            kept.append(action)
    return kept, refused
