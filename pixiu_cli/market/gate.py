"""The one plausibility gate every daily bar and corporate action passes before it is stored,
whichever door it came in by (a CSV file, baostock, akshare): a bar must be of a session
that happened (a calendar date, up to today, a trading day in the shipped calendar) with
prices and a volume a quote could have had; an action must have numbers a real one could
have and, where the bars around its ex-date are known, an ex-date open within the daily
limit of its reference price. Each refusal names the source, the symbol, the date and the
field, so a sync can store the rest and say what it left out, and a file import can refuse
the file naming its row."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, replace
from datetime import date, timedelta
from decimal import Decimal

from pixiu_cli.market.bars import RESUMPTION_DAYS, Bar, BarSeries, CorporateAction, PriceColumns
from pixiu_cli.market.fundamentals.model import Dividend, FinancialReport, FundamentalsWrite, ReportNotice, ValuationDay
from pixiu_cli.market.plausible import (
    BREADTH_FIGURES,
    DIVIDEND_FIGURES,
    INDUSTRY_FIGURES,
    NOTICE_FIGURES,
    REPORT_FIGURES,
    VALUATION_FIGURES,
    Problem,
    action_values_problem,
    bar_problem,
    calendar_date,
    day_problem,
    ex_date_problem,
    figure_problem,
    fill_price_problem,
    reference_price,
)
from pixiu_cli.market.review.model import Snapshot
from pixiu_cli.market.securities import daily_limit, limit_schedule
from pixiu_cli.market.trading_days import holiday_name, is_trading_day, knows, trading_calendar

_WEEKEND = ("周六", "周日")


@dataclass(frozen=True)
class Refusal:
    source: str
    symbol: str
    date: str
    problem: Problem

    def line(self) -> str:
        return f"未保存：{self.source} {self.symbol} {self.date} {self.problem.text()}"


def session_problem(day: str, today: date, listed: Collection[str] = ()) -> Problem | None:
    """A bar's date: one the calendar has, from the first session to today, on which the
    exchanges were open (as far as the shipped calendar knows: past its end, not guessed).
    `listed`: weekdays a sync's source stored as sessions, which win over a shipped holiday
    (as they do for staleness); no weekend ever had a session."""
    parsed = calendar_date(day)
    if parsed is None:
        return Problem("日期", f"「{day[:20]}」不是有效的 YYYY-MM-DD 日期")
    if problem := day_problem(parsed, today):
        return Problem("日期", problem)
    if parsed.weekday() >= 5:
        return Problem("日期", f"{day} 是{_WEEKEND[parsed.weekday() - 5]}，交易所休市")
    if knows(parsed) and not is_trading_day(parsed) and day not in listed:
        return Problem("日期", f"{day} 是{holiday_name(parsed)}，交易所休市")
    return None


def off_session(days):
    """session_problem's trading-day test over a numpy column of days since 1970-01-01:
    True on a weekend and on a weekday the calendar knows as closed (no source lists these)."""
    import numpy as np

    weekend = (days + 3) % 7 >= 5  # 1970-01-01 was a Thursday
    return weekend | np.isin(days, _closed_days(trading_calendar().closed))


_CLOSED: list = [
    None,
    None,
]  # the calendar's closed weekdays, and them as numpy days (one per file was 5% of an import)


def _closed_days(closed: frozenset[date]):
    import numpy as np

    if _CLOSED[0] is not closed:  # a reloaded calendar is a new set
        epoch = date(1970, 1, 1)
        _CLOSED[:] = [closed, np.array(sorted((d - epoch).days for d in closed), dtype="int64")]
    return _CLOSED[1]


def screen_bars(
    source: str, symbol: str, bars: Iterable[Bar], today: date, listed: Collection[str] = ()
) -> tuple[list[Bar], list[Refusal]]:
    kept, refused = [], []
    for bar in bars:
        problem = session_problem(bar.date, today, listed) or bar_problem(bar)
        if problem:
            refused.append(Refusal(source, symbol, bar.date, problem))
        else:
            kept.append(bar)
    return kept, refused


def ex_day_problem(prices: PriceColumns, action: CorporateAction) -> Problem | None:
    """The action against the close before its ex-date and the open on it."""
    i = bisect_left(prices.dates, action.ex_date)
    if i == 0:
        return None  # no close before it: nothing to derive a reference price from
    close = prices.closes[i - 1]
    cash, shares, ratio = action.cash_per_share, action.shares_per_share, action.ratio
    if not ratio and cash >= close:
        return Problem("每股派现", f"{cash:g} 元不低于除权前收盘价 {close:g} 元")
    on_ex_date = i < len(prices.dates) and prices.dates[i] == action.ex_date
    ex_open, limit = (prices.opens[i], _limit(prices, i)) if on_ex_date else (None, None)
    return ex_date_problem(reference_price(close, cash, shares, ratio), close, ex_open, limit)


def _limit(prices: PriceColumns, i: int) -> float | None:
    day, before = prices.dates[i], prices.dates[i - 1]
    if day < limit_schedule(prices.symbol)[0][0]:
        return None  # no daily limit yet (A-shares traded without one until 1996-12-16)
    if (date.fromisoformat(day) - date.fromisoformat(before)).days > RESUMPTION_DAYS:
        return None  # the reopening carries the pause's news, and may have had no limit
    return daily_limit(prices.symbol, day, prices.st[i] or prices.st[i - 1])


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
        problem = ex_day_problem(prices, action)
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


# fundamentals and the market review ------------------------------------------------------
# A dividend plan is announced ahead of its ex-date and payment; a year ahead is the most.
PLAN_DAYS_AHEAD = 366


def figures_problem(item, figures: dict[str, tuple[str, str]]) -> Problem | None:
    """The first figure of `item` (a dataclass) outside its bounds; None (not given) passes."""
    for name, (label, kind) in figures.items():
        value = getattr(item, name)
        if value is not None and (reason := figure_problem(kind, value)):
            return Problem(label, reason)
    return None


def dates_problem(item, names: dict[str, str], today: date, days_ahead: int = 0) -> Problem | None:
    """Each named date of `item` (None passes) a calendar date from the first session to
    `days_ahead` after today: a row dated in the future would list first and read as news."""
    for name, label in names.items():
        value = getattr(item, name)
        if value is None:
            continue
        parsed = calendar_date(str(value)[:10])
        if parsed is None:
            return Problem(label, f"「{str(value)[:20]}」不是有效的 YYYY-MM-DD 日期")
        if problem := day_problem(parsed, today, days_ahead):
            return Problem(label, problem)
    return None


def _valuation_problem(v: ValuationDay, today: date) -> Problem | None:
    return dates_problem(v, {"date": "日期"}, today) or figures_problem(v, VALUATION_FIGURES)


def _report_problem(r: FinancialReport, today: date) -> Problem | None:
    dated = dates_problem(r, {"period": "报告期", "published": "披露日"}, today)
    return dated or figures_problem(r, REPORT_FIGURES)


def _dividend_problem(d: Dividend, today: date, closes: Callable[[str], float | None]) -> Problem | None:
    problem = dates_problem(d, {"announced": "公告日"}, today)
    problem = problem or dates_problem(d, {"ex_date": "除权除息日", "pay_date": "派息日"}, today, PLAN_DAYS_AHEAD)
    problem = problem or figures_problem(d, DIVIDEND_FIGURES)
    close = closes(d.ex_date or d.announced or today.isoformat()) if problem is None and d.cash else None
    if close is not None and d.cash is not None and d.cash >= Decimal(str(close)):
        return Problem("每股派现", f"{d.cash} 元不低于除权前收盘价 {close:g} 元")
    return problem


def _notice_problem(n: ReportNotice, today: date) -> Problem | None:
    dated = dates_problem(n, {"published": "披露日"}, today) or dates_problem(n, {"period": "报告期"}, today, 366)
    return dated or figures_problem(n, NOTICE_FIGURES)


def screen_fundamentals(
    write: FundamentalsWrite, today: date, closes: Callable[[str], float | None] = lambda day: None
) -> tuple[FundamentalsWrite, list[Refusal]]:
    """The write with every row a figure or a date of which no company could have left out,
    and a Refusal for each. `closes(day)`: the stock's close before `day` (its stored bars or
    the write's own valuation days), which a cash dividend per share stays below."""
    refused: list[Refusal] = []

    def kept(rows, problem_of, day_of):
        out = []
        for row in rows:
            if problem := problem_of(row):
                refused.append(Refusal(write.source, write.symbol, day_of(row) or "", problem))
            else:
                out.append(row)
        return tuple(out)

    screened = replace(
        write,
        valuations=kept(write.valuations, lambda v: _valuation_problem(v, today), lambda v: v.date),
        reports=kept(write.reports, lambda r: _report_problem(r, today), lambda r: r.period),
        dividends=kept(
            write.dividends, lambda d: _dividend_problem(d, today, closes), lambda d: d.ex_date or d.announced
        ),
        notices=kept(write.notices, lambda n: _notice_problem(n, today), lambda n: n.period),
    )
    return screened, refused


WHOLE_MARKET = "全市场"


def screen_snapshot(snapshot: Snapshot, source: str) -> tuple[Snapshot, list[Refusal]]:
    """The breadth must hold; an industry board with a figure no board could have is left out."""
    breadth = snapshot.breadth
    if problem := figures_problem(breadth, BREADTH_FIGURES):
        return snapshot, [Refusal(source, WHOLE_MARKET, breadth.session, problem)]
    industries, refused = [], []
    for move in snapshot.industries:
        if problem := figures_problem(move, INDUSTRY_FIGURES):
            refused.append(Refusal(source, move.name or move.code, move.session, problem))
        else:
            industries.append(move)
    return replace(snapshot, industries=tuple(industries)), refused


def spot_problem(price, previous_close, amount) -> Problem | None:
    """One stock's row of a whole-market snapshot: prices and the amount traded."""
    for label, kind, value in (
        ("最新价", "price", price),
        ("昨收", "price", previous_close),
        ("成交额", "turnover", amount),
    ):
        if value is not None and (reason := figure_problem(kind, value)):
            return Problem(label, reason)
    return None


# fills ---------------------------------------------------------------------------------------
# A fill is checked against the stock's stored bars this many days either side of its day.
FILL_WINDOW_DAYS = 10


def fill_refusal(bars: BarSeries, day: str, price: float) -> str | None:
    """A fill's price against the stock's stored bars (`bars`: its series, whole or in part)
    within FILL_WINDOW_DAYS of its day: within their low and high, widened by one daily
    limit. No bars stored there: nothing to compare with (the absolute bounds still hold)."""
    span = timedelta(days=FILL_WINDOW_DAYS)
    d = date.fromisoformat(day)
    lo = bisect_left(bars.dates, (d - span).isoformat())
    hi = bisect_right(bars.dates, (d + span).isoformat())
    if lo >= hi or not price:
        return None
    low, high = min(bars.low[lo:hi]), max(bars.high[lo:hi])
    limit = daily_limit(bars.symbol, day, any(bars.is_st[lo:hi]))
    return fill_price_problem(price, low, high, limit, f"{bars.dates[lo]} 至 {bars.dates[hi - 1]}")


def fill_window(day: str) -> tuple[str, str]:
    """The stretch of bars fill_refusal reads around a fill's day."""
    d, span = date.fromisoformat(day), timedelta(days=FILL_WINDOW_DAYS)
    return (d - span).isoformat(), (d + span).isoformat()
