"""How the account has done over time: its value at every session's close, and the returns
over a period derived from it.

The value of a day is the ledger's shares at that day's close (the same events and arithmetic
as today's holdings: ledger.day_ends) times the stored unadjusted close, plus the cash as the
ledger rolls it from the stated balances. A held stock with no close that day is valued at its
last close (or, before its first bar, at the price it was bought at) and counted.

Flows. Only money moved between the bank and the account (银证转入/转出) is external: a
dividend, a fee, a tax or interest is the account's own result. When no cash balance was ever
stated, the account is its stocks alone, and money into and out of them (buys, sales, dividends
taken out, taxes paid in) are its flows; the figures say so. A flow is taken at the start of its
day: the day's return is V(d) / (V(d−1) + F(d)) − 1, so a deposit and the buy it pays for on one
day earn that day's move.

The time-weighted return chains the daily returns; the money-weighted return is the rate that
discounts the period's start value, its flows and its end value to zero, over Actual/365 years.
Money is Decimal; returns, which are ratios of it, are floats."""

from __future__ import annotations

import json
import math
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from functools import cached_property
from typing import TYPE_CHECKING

from pixiu_cli.account.ledger import ZERO, cash_effect, day_ends, dec
from pixiu_cli.account.model import (
    ACCOUNT_CASH_KINDS,
    ALLOTMENT,
    BUY,
    HOLDING_CASH_KINDS,
    IPO_PAYMENT,
    RIGHTS,
    SHARE_KINDS,
    TRANSFER_IN,
    TRANSFER_OUT,
    CashBalance,
    Fill,
    opening_balance,
)
from pixiu_cli.account.overview import stated_lots
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.market.bars import CSI300, Benchmark
from pixiu_cli.market.calendar import last_complete_session
from pixiu_cli.market.trading_days import previous_trading_day, sessions_in

if TYPE_CHECKING:
    from pixiu_cli.account.books import AccountBooks

TRADING_DAYS_A_YEAR = 252
EXTERNAL_KINDS = (TRANSFER_IN, TRANSFER_OUT)
_PRICED_BUYS = (BUY, ALLOTMENT, RIGHTS)


@dataclass(frozen=True)
class DayValue:
    day: str
    stocks: Decimal
    cash: Decimal | None  # None: stocks alone (no balance was ever stated)
    flow: Decimal  # external money in (+) or out (−) that day
    carried: int = 0  # held stocks valued at an earlier close (or their buy price)

    @property
    def value(self) -> Decimal:
        return self.stocks + (self.cash or ZERO)


@dataclass(frozen=True)
class ValueSeries:
    """The account's value at every session's close from the day before its first event.
    `known_from`: the first day whose value is known (days before it miss shares or cash the
    ledger never saw: `unknown_why` says what)."""

    days: tuple[DayValue, ...]
    stocks_only: bool
    known_from: str
    unknown_why: str = ""
    cash_unknown: int = 0  # fills whose effect on cash no statement gave

    def index(self, day: str) -> int:
        """The position of the last day on or before `day` (−1 when none)."""
        return bisect_right(self._days, day) - 1

    @cached_property
    def _days(self) -> list[str]:
        return [d.day for d in self.days]

    def to_json(self) -> str:
        return json.dumps(
            {
                "stocks_only": self.stocks_only,
                "known_from": self.known_from,
                "unknown_why": self.unknown_why,
                "cash_unknown": self.cash_unknown,
                "days": [
                    [d.day, str(d.stocks), None if d.cash is None else str(d.cash), str(d.flow), d.carried]
                    for d in self.days
                ],
            },
            ensure_ascii=False,
        )

    @staticmethod
    def from_json(text: str) -> ValueSeries:
        data = json.loads(text)
        days = tuple(
            DayValue(day, Decimal(stocks), None if cash is None else Decimal(cash), Decimal(flow), carried)
            for day, stocks, cash, flow, carried in data["days"]
        )
        return ValueSeries(days, data["stocks_only"], data["known_from"], data["unknown_why"], data["cash_unknown"])


# the series ---------------------------------------------------------------------------
def _stock_flow(f: Fill, effect: Decimal | None) -> Decimal:
    """Money into the stocks (+) or out of them (−) by a fill, when the stocks are the account:
    the cash the fill moved, seen from the other side. An IPO payment waits for its shares."""
    if effect is None or f.kind == IPO_PAYMENT or f.kind in ACCOUNT_CASH_KINDS:
        return ZERO
    return -effect if f.kind in SHARE_KINDS + HOLDING_CASH_KINDS else ZERO


class _Unknown:
    """The latest day before which the account's value is not known, and why."""

    def __init__(self) -> None:
        self.day, self.why = "", ""

    def before(self, day: str, why: str) -> None:
        if day > self.day:
            self.day, self.why = day, why


class _Stock:
    """One stock walked through the sessions: its shares from the ledger's day ends, its price
    from the stored closes, or before its first bar (or a later buy) the price it was bought at."""

    def __init__(self, symbol: str, steps: Sequence[tuple[str, Decimal]], bought: Sequence[tuple[str, Decimal]], bars):
        self.symbol, self.steps, self.bought, self.bars = symbol, steps, bought, bars
        self.shares = ZERO
        self.step = 0
        self.close = self.buy = -1

    def on(self, day: str) -> tuple[Decimal, Decimal | None, bool]:
        """(shares, price, carried) at the day's close; price None when nothing prices it."""
        while self.step < len(self.steps) and self.steps[self.step][0] <= day:
            self.shares = self.steps[self.step][1]
            self.step += 1
        dates = self.bars.dates
        while self.close + 1 < len(dates) and dates[self.close + 1] <= day:
            self.close += 1
        while self.buy + 1 < len(self.bought) and self.bought[self.buy + 1][0] <= day:
            self.buy += 1
        if self.close >= 0 and (self.buy < 0 or dates[self.close] >= self.bought[self.buy][0]):
            return self.shares, dec(self.bars.close[self.close]), dates[self.close] != day
        if self.buy >= 0:
            return self.shares, self.bought[self.buy][1], True
        return self.shares, None, True


def _stocks(account: AccountBooks, fills: Sequence[Fill], lots, start: str, end: str, unknown: _Unknown):
    """Each stock walked through the sessions, and the cash the ledger itself moved by day."""
    by_symbol: dict[str, list[Fill]] = defaultdict(list)
    for f in fills:
        if f.symbol:
            by_symbol[f.symbol].append(f)
    symbols = sorted(set(by_symbol) | set(lots))
    market = account.market.bars
    actions = market.actions_for(symbols, [])
    applied: dict[str, Decimal] = defaultdict(lambda: ZERO)
    stocks = []
    for s in symbols:
        lot = lots.get(s)
        if lot is not None:
            day = lot.day or end
            unknown.before(
                day, f"{s} 的持仓从 {lot.day} 记起，之前的成交未知" if lot.day else f"{s} 的持仓没有记录日期"
            )
        steps = day_ends(s, by_symbol.get(s, []), lot=lot, actions=actions.get(s, ()), until=end)
        opened = next((e.day for e in steps if e.opening > 0), None)
        if opened:
            unknown.before(opened, f"{s} 在 {opened} 卖出了记录里没有买入的股份")
        for e in steps:
            if e.applied_cash:
                applied[e.day] += e.applied_cash
        bought = [(f.day, dec(f.price)) for f in by_symbol.get(s, []) if f.kind in _PRICED_BUYS and f.price]
        if lot is not None:
            bought.append((lot.day, lot.cost))
        stocks.append(_Stock(s, [(e.day, e.shares) for e in steps], sorted(bought), market.bars(s, start, end)))
    return stocks, applied


def _movements(fills: Sequence[Fill], applied: dict[str, Decimal], stocks_only: bool):
    """(cash moved by day, external flows by day, the fills with their cash effect, how many
    fills moved cash by an amount no statement gave)."""
    moved: dict[str, Decimal] = defaultdict(lambda: ZERO)
    flows: dict[str, Decimal] = defaultdict(lambda: ZERO)
    effects: list[tuple[Fill, Decimal]] = []
    for f in fills:
        effect = cash_effect(f)
        if effect is None:
            continue
        effects.append((f, effect))
        moved[f.day] += effect
        if stocks_only:
            flows[f.day] += _stock_flow(f, effect)
        elif f.kind in EXTERNAL_KINDS:
            flows[f.day] += effect
    for day, cash in applied.items():
        moved[day] += cash
        if stocks_only:
            flows[day] -= cash
    return moved, flows, effects, len(fills) - len(effects)


def value_series(account: AccountBooks, now: datetime) -> ValueSeries:
    """The account's value at every session's close up to the last closed one (see the module's
    docstring); derived from the one ledger, the stated holdings and balances, the stored
    corporate actions and closes. Several broker accounts: each derived alone (its own cash
    and balances), then added up day by day."""

    if names := account.several():
        return _added_up([value_series(account.narrowed(name), now) for name in names])
    store = account.store
    fills = store.fills(skipped=[])
    lots = stated_lots(account.home.investor.holdings()) if account.holds_stated() else {}
    balances = store.cash_statements() or ([opening_balance()] if store.has_transfers() else [])
    stocks_only = not balances
    end = last_complete_session(now).isoformat()
    event_days = [f.day for f in fills] + [lot.day for lot in lots.values() if lot.day]
    if not event_days:
        told = "导入对账单，或用 pixiu trade、pixiu cash in 记下成交和转账后可算"
        why = f"持仓没有记录日期，不知道从哪天算起（{told}）" if lots else f"账户里还没有成交或持仓记录（{told}）"
        return ValueSeries((), stocks_only, "", why)
    sessions = [d.isoformat() for d in sessions_in(date.fromisoformat(min(event_days)), date.fromisoformat(end))]
    if not sessions:
        return ValueSeries((), stocks_only, "", "账户的记录都在最后一个已收盘交易日之后")
    days = [previous_trading_day(date.fromisoformat(sessions[0])).isoformat(), *sessions]
    unknown = _Unknown()
    stocks, applied = _stocks(account, fills, lots, days[0], end, unknown)
    moved, flows, effects, cash_unknown = _movements(fills, applied, stocks_only)
    cash_by_day = None if stocks_only else _cash_by_day(days, balances, moved, effects)
    if cash_by_day is not None:
        negative = [d for d, c in zip(days, cash_by_day, strict=True) if c < Decimal("-0.005")]
        if negative:  # known from the day after the last one: its cash is the first that can be right
            after = days[min(days.index(negative[-1]) + 1, len(days) - 1)]
            unknown.before(after, f"{negative[-1]} 及之前的现金算出来是负数：更早的转入或成交没有记录")
    folded: dict[str, Decimal] = defaultdict(lambda: ZERO)  # a flow dated off a session: the next one's
    for day, amount in flows.items():
        folded[days[min(bisect_left(days, day), len(days) - 1)]] += amount
    out: list[DayValue] = []
    for i, day in enumerate(days):
        value, carried = ZERO, 0
        for stock in stocks:
            shares, price, old = stock.on(day)
            if shares <= 0:
                continue
            if price is None:
                unknown.before(day, f"{stock.symbol} 在 {day} 没有任何价格")
                continue
            value += shares * price
            carried += old
        out.append(
            DayValue(day, value, None if cash_by_day is None else cash_by_day[i], folded.get(day, ZERO), carried)
        )
    known = days[min(bisect_left(days, unknown.day), len(days) - 1)] if unknown.day else days[0]
    return ValueSeries(tuple(out), stocks_only, known, unknown.why, cash_unknown)


def _added_up(parts: Sequence[ValueSeries]) -> ValueSeries:
    """Several accounts' series as one: on each day the sum of their values and flows (an
    account not yet opened adds nothing); known from the latest day any of them is known from.
    The stocks alone only when every account is (one with cash counts its cash)."""
    parts = [p for p in parts if p.days]
    if not parts:
        return ValueSeries((), True, "", "账户里还没有成交或持仓记录")
    days = sorted({d.day for p in parts for d in p.days})
    out = []
    cursors = [0] * len(parts)
    for day in days:
        stocks, cash, flow, carried, any_cash = ZERO, ZERO, ZERO, 0, False
        for i, p in enumerate(parts):
            while cursors[i] + 1 < len(p.days) and p.days[cursors[i] + 1].day <= day:
                cursors[i] += 1
            at = p.days[cursors[i]]
            if at.day > day:
                continue  # not opened yet
            stocks += at.stocks
            carried += at.carried
            if at.cash is not None:
                cash, any_cash = cash + at.cash, True
            if at.day == day:
                flow += at.flow
        out.append(DayValue(day, stocks, cash if any_cash else None, flow, carried))
    # an account opened later was worth nothing before: only a history it does not know holds the sum back
    unknown = [p for p in parts if p.known_from > p.days[0].day]
    latest = max(unknown, key=lambda p: p.known_from) if unknown else None
    known, why = (latest.known_from, latest.unknown_why) if latest else (days[0], "")
    stocks_only = all(p.stocks_only for p in parts)
    return ValueSeries(tuple(out), stocks_only, known, why, sum(p.cash_unknown for p in parts))


def _cash_by_day(
    days: Sequence[str], balances: Sequence[CashBalance], moved: dict[str, Decimal], effects
) -> list[Decimal]:
    """The cash at each day's close: the latest balance stated on or before the day, moved by
    the ledger's flows after it (as today's cash is: overview.read_account); before the first
    balance, that balance with the later flows taken back."""
    # cumulative movement through each day, events off a session counted on their own date
    movement_days = sorted(moved)
    cumulative: list[tuple[str, Decimal]] = []
    running = ZERO
    for day in movement_days:
        running += moved[day]
        cumulative.append((day, running))

    def through(day: str) -> Decimal:
        at = bisect_right(movement_days, day)
        return cumulative[at - 1][1] if at else ZERO

    def anchor(b: CashBalance) -> Decimal:
        """The movement the balance already contains: every flow through the day before it, and
        of its own day those written before it (a balance said by the user) or all (a statement's)."""
        if b.source == "user" and b.fills_before is not None:
            before = through((date.fromisoformat(b.as_of) - timedelta(days=1)).isoformat())
            own = [e for f, e in effects if f.day == b.as_of and (f.seq or 0) <= b.fills_before]
            return before + sum(own, ZERO)
        return through(b.as_of)

    ordered = sorted(balances, key=lambda b: b.as_of)  # the store gives those of one day in the order said
    anchors = [(b, dec(b.amount) - anchor(b)) for b in ordered]
    out = []
    k = -1
    for day in days:
        while k + 1 < len(anchors) and anchors[k + 1][0].as_of <= day:
            k += 1
        base = anchors[max(k, 0)][1]
        out.append(base + through(day))
    return out


# periods -------------------------------------------------------------------------------
PERIOD_WORDS = {
    "ytd": "ytd",
    "今年": "ytd",
    "今年以来": "ytd",
    "1m": "1m",
    "近一月": "1m",
    "近一个月": "1m",
    "3m": "3m",
    "近三月": "3m",
    "近三个月": "3m",
    "1y": "1y",
    "近一年": "1y",
    "all": "all",
    "自成立": "all",
    "成立以来": "all",
}
PERIOD_LABELS = {"ytd": "今年以来", "1m": "近一月", "3m": "近三月", "1y": "近一年", "all": "自成立"}
PERIOD_HELP = "今年以来（ytd）、近一月（1m）、近三月（3m）、近一年（1y）、自成立（all）、某年（2025）、某月（2025-03）"


@dataclass(frozen=True)
class Period:
    label: str
    base: str  # the day whose close the period starts from (exclusive)
    end: str  # the last day (inclusive)


def _months_back(day: date, months: int) -> date:
    month = day.month - months
    year = day.year + (month - 1) // 12
    month = (month - 1) % 12 + 1
    for d in (31, 30, 29, 28):
        try:
            return date(year, month, min(day.day, d))
        except ValueError:
            continue
    raise AssertionError


def period(words: str | None, today: date, start: str | None = None, end: str | None = None) -> Period:
    """The period the words name, ending at `end` (or `today`); `start`/`end` (--from/--to)
    name one outright. Refused in one line when the words name none."""
    last = date.fromisoformat(end) if end else today
    if start:
        first = date.fromisoformat(start)
        if first > last:
            raise RequestError(f"开始日期 {start} 晚于结束日期 {last.isoformat()}")
        base = (first - timedelta(days=1)).isoformat()
        return Period(f"{start} 至 {last.isoformat()}", base, last.isoformat())
    key = PERIOD_WORDS.get((words or "ytd").strip().lower())
    if key == "ytd":
        return Period("今年以来", date(last.year - 1, 12, 31).isoformat(), last.isoformat())
    if key in ("1m", "3m", "1y"):
        months = {"1m": 1, "3m": 3, "1y": 12}[key]
        return Period(PERIOD_LABELS[key], _months_back(last, months).isoformat(), last.isoformat())
    if key == "all":
        return Period("自成立", "0000-00-00", last.isoformat())
    text = (words or "").strip()
    if len(text) == 4 and text.isdigit():
        year = int(text)
        if year > last.year:
            raise RequestError(f"{year} 年还没有到")
        return Period(f"{year} 年", f"{year - 1}-12-31", min(last, date(year, 12, 31)).isoformat())
    if len(text) == 7 and text[4] == "-" and text[:4].isdigit() and text[5:].isdigit() and 1 <= int(text[5:]) <= 12:
        year, month = int(text[:4]), int(text[5:])
        month_end = (
            (date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)) if month < 12 else date(year, 12, 31)
        )
        base = (date(year, month, 1) - timedelta(days=1)).isoformat()
        return Period(f"{year} 年 {month} 月", base, min(last, month_end).isoformat())
    raise RequestError(f"不认识的区间 {words!r}：可以是 {PERIOD_HELP}")


# the figures ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Drawdown:
    depth: float  # ≤ 0
    peak: str
    trough: str


@dataclass(frozen=True)
class MonthReturn:
    month: str  # YYYY-MM, or YYYY for a year
    twr: float
    profit: Decimal


@dataclass(frozen=True)
class Performance:
    period: Period
    first_day: str  # the first day the figures count (after the base)
    last_day: str
    start_value: Decimal
    end_value: Decimal
    money_in: Decimal
    money_out: Decimal
    profit: Decimal
    twr: float
    irr: float | None  # annualised, Actual/365
    irr_period: float | None  # the same rate over the period's length
    drawdown: Drawdown | None
    volatility: float | None  # annualised, from the daily returns
    months: tuple[MonthReturn, ...]
    years: tuple[MonthReturn, ...]
    stocks_only: bool
    carried_days: int  # days on which a held stock had no close of its own
    benchmark: Benchmark | None = None
    benchmark_return: float | None = None
    benchmark_note: str = ""
    daily: tuple[tuple[str, float, float], ...] = field(default=(), repr=False)  # day, value, growth of 1
    benchmark_daily: tuple[float | None, ...] = field(default=(), repr=False)  # its growth of 1, day by day

    @property
    def excess(self) -> float | None:
        return None if self.benchmark_return is None else self.twr - self.benchmark_return

    @property
    def best_month(self) -> MonthReturn | None:
        return max(self.months, key=lambda m: m.twr, default=None)

    @property
    def worst_month(self) -> MonthReturn | None:
        return min(self.months, key=lambda m: m.twr, default=None)


class PeriodUnknown(RequestError):
    """The period reaches back before the days whose value is known."""


def daily_returns(days: Sequence[DayValue]) -> list[float]:
    """Each day's return after the first: V(d) / (V(d−1) + F(d)) − 1, 0 when nothing was at work."""
    out = []
    for before, day in zip(days, days[1:]):
        at_work = before.value + day.flow
        out.append(float(day.value / at_work) - 1 if at_work > 0 else 0.0)
    return out


def xirr(flows: Sequence[tuple[date, float]]) -> float | None:
    """The annual rate r with Σ cf / (1 + r)^(days/365) = 0 (Actual/365 from the first date);
    None when the flows change sign nowhere or no rate solves them."""
    if not flows or all(cf >= 0 for _, cf in flows) or all(cf <= 0 for _, cf in flows):
        return None
    t0 = min(d for d, _ in flows)
    years = [((d - t0).days / 365.0, cf) for d, cf in flows]

    def npv(rate: float) -> float:
        return sum(cf / (1.0 + rate) ** t for t, cf in years)

    try:
        found = _newton(npv, lambda rate: sum(-t * cf / (1.0 + rate) ** (t + 1) for t, cf in years))
        return found if found is not None else _bisection(npv)
    except (OverflowError, ZeroDivisionError):
        return None


def _newton(f, slope, rate: float = 0.1) -> float | None:
    """From 10%; None when it strays below −100% or stalls (bisection takes over)."""
    for _ in range(100):
        value, d = f(rate), slope(rate)
        if abs(value) < 1e-10:
            return rate
        if d == 0:
            return None
        step = rate - value / d
        if not math.isfinite(step) or step <= -1.0:
            return None
        if abs(step - rate) < 1e-14:
            return step
        rate = step
    return None


def _bisection(f) -> float | None:
    lo, hi = -0.999999, 1.0
    while f(lo) * f(hi) > 0 and hi < 1e9:
        hi *= 10
    if f(lo) * f(hi) > 0:
        return None
    for _ in range(300):
        mid = (lo + hi) / 2
        if f(lo) * f(mid) <= 0:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2


def _drawdown(days: Sequence[str], growth: Sequence[float]) -> Drawdown | None:
    if not growth:
        return None
    peak_value, peak_day = growth[0], days[0]
    worst = Drawdown(0.0, days[0], days[0])
    for day, g in zip(days, growth):
        if g > peak_value:
            peak_value, peak_day = g, day
        depth = g / peak_value - 1 if peak_value > 0 else 0.0
        if depth < worst.depth:
            worst = Drawdown(depth, peak_day, day)
    return worst


def _chained(groups: Iterable[tuple[str, list[tuple[float, Decimal]]]]) -> tuple[MonthReturn, ...]:
    out = []
    for key, items in groups:
        growth = 1.0
        for r, _ in items:
            growth *= 1 + r
        out.append(MonthReturn(key, growth - 1, sum((p for _, p in items), ZERO)))
    return tuple(out)


def _grouped(days: Sequence[DayValue], returns: Sequence[float], width: int):
    groups: dict[str, list[tuple[float, Decimal]]] = {}
    for before, day, r in zip(days, days[1:], returns):
        profit = day.value - before.value - day.flow
        groups.setdefault(day.day[:width], []).append((r, profit))
    return groups.items()


def measure(
    series: ValueSeries, period: Period, benchmark_closes=None, benchmark: Benchmark | None = None
) -> Performance:
    """The figures of `period` on the value series. Refused (PeriodUnknown) when the period
    starts before the days whose value is known, unless the account was empty then."""
    window = _window(series, period)
    returns = daily_returns(window)
    growth, g = [1.0], 1.0
    for r in returns:
        g *= 1 + r
        growth.append(g)
    flows = [d.flow for d in window[1:]]
    start_value, end_value = window[0].value, window[-1].value
    money_in = sum((f for f in flows if f > 0), ZERO)
    money_out = -sum((f for f in flows if f < 0), ZERO)
    profit = end_value - start_value - (money_in - money_out)
    irr, irr_period = _money_weighted(window)
    bench_return, note, bench_growth = None, "", []
    if benchmark is not None:
        bench_return, note, bench_growth = _benchmark_return(benchmark_closes, [d.day for d in window], benchmark)
    return Performance(
        period,
        window[1].day,
        window[-1].day,
        start_value,
        end_value,
        money_in,
        money_out,
        profit,
        growth[-1] - 1,
        irr,
        irr_period,
        _drawdown([d.day for d in window], growth),
        _volatility(returns),
        _chained(_grouped(window, returns, 7)),
        _chained(_grouped(window, returns, 4)),
        series.stocks_only,
        sum(1 for d in window[1:] if d.carried),
        benchmark,
        bench_return,
        note,
        tuple((d.day, float(d.value), gr) for d, gr in zip(window, growth)),
        tuple(bench_growth),
    )


def _window(series: ValueSeries, period: Period) -> Sequence[DayValue]:
    """The period's days from its base; refused (PeriodUnknown) when the base is before the days
    whose value is known, unless the account was empty then."""
    if not series.days:
        raise PeriodUnknown(f"算不出收益：{series.unknown_why or '没有账户记录'}")
    base_at, end_at = series.index(period.base), series.index(period.end)
    known_at = series.index(series.known_from)
    if base_at < known_at:
        empty_before = known_at == 0 and series.days[0].value == 0
        if period.label != "自成立" and not empty_before and not (base_at < 0 and known_at == 0):
            raise PeriodUnknown(
                f"{period.label}的收益算不出来：{series.known_from} 之前的账户价值未知（{series.unknown_why}）；"
                f"可以看 {series.known_from} 之后的区间（--from {next_day(series.known_from)}）"
            )
        base_at = known_at
    if end_at <= base_at:
        raise PeriodUnknown(f"{period.label}里没有已收盘的交易日")
    return series.days[base_at : end_at + 1]


def _money_weighted(window: Sequence[DayValue]) -> tuple[float | None, float | None]:
    """(annual rate, the same over the period's length) discounting the start value, the flows
    and the end value to zero."""
    start_value = window[0].value
    dated = [(date.fromisoformat(window[0].day), -float(start_value))] if start_value else []
    dated += [(date.fromisoformat(d.day), -float(d.flow)) for d in window[1:] if d.flow]
    dated.append((date.fromisoformat(window[-1].day), float(window[-1].value)))
    irr = xirr(dated)
    span = (date.fromisoformat(window[-1].day) - min(d for d, _ in dated)).days
    return irr, None if irr is None else (1 + irr) ** (span / 365.0) - 1


def _volatility(returns: Sequence[float]) -> float | None:
    """Annualised, from the daily returns' sample deviation."""
    if len(returns) < 2:
        return None
    mean = sum(returns) / len(returns)
    variance = sum((r - mean) ** 2 for r in returns) / (len(returns) - 1)
    return math.sqrt(variance) * math.sqrt(TRADING_DAYS_A_YEAR)


def next_day(day: str) -> str:
    return (date.fromisoformat(day) + timedelta(days=1)).isoformat()


def _benchmark_growth(closes, days: Sequence[str]) -> list[float | None]:
    """The benchmark's growth of 1 from the first day's close (its last close on or before it)
    to each day's; None while it has no close yet."""
    dates, values = getattr(closes, "dates", ()), getattr(closes, "close", ())
    out: list[float | None] = []
    at, base = -1, None
    for day in days:
        while at + 1 < len(dates) and dates[at + 1] <= day:
            at += 1
        if at < 0:
            out.append(None)
            continue
        if base is None:
            base = values[at] if dates[at] <= days[0] else None
        out.append(None if base is None else values[at] / base)
    return out


def _benchmark_return(closes, days: Sequence[str], benchmark: Benchmark) -> tuple[float | None, str, list]:
    dates = getattr(closes, "dates", ())
    if not dates:
        return None, f"没有已存的{benchmark.name}日线（pixiu data sync 会同步）", []
    growth = _benchmark_growth(closes, days)
    if growth[-1] is None or dates[0] > days[0]:
        return None, f"已存的{benchmark.name}日线不覆盖 {days[0]} 至 {days[-1]}", []
    last = max(d for d in dates if d <= days[-1])
    note = "" if last == days[-1] else f"{benchmark.name}的日线只到 {last}"
    return growth[-1] - 1, note, growth


# the use case ------------------------------------------------------------------------
def account_series(account: AccountBooks, now: datetime) -> ValueSeries:
    """The value series, from the stored copy while the ledger, the holdings, the stored market
    data and the last closed session are those it was derived from."""
    version = account.home.investor.portfolio_version()  # None inside a transaction: the key may not last
    key = json.dumps(
        [version, list(account.store.version()), account.market.bars.version(), last_complete_session(now).isoformat()]
    )
    scope = account.broker_account or ""
    stored = account.store.stored_series(scope, key) if version is not None else None
    if stored is not None:
        try:
            return ValueSeries.from_json(stored)
        except (ValueError, KeyError, TypeError, ArithmeticError):
            pass
    series = value_series(account, now)
    if version is not None:
        account.store.keep_series(scope, key, series.to_json())
    return series


def account_performance(
    account: AccountBooks,
    now: datetime,
    words: str | None = None,
    *,
    start: str | None = None,
    end: str | None = None,
    benchmark: Benchmark | None = CSI300,
) -> Performance:
    """The account's figures over the period the words (or --from/--to) name, against the
    benchmark's same period: what `pixiu performance`, the brief and the context block show."""
    today = last_complete_session(now)
    chosen = period(words, today, start, end)
    series = account_series(account, now)
    closes = None
    if benchmark is not None:
        closes = account.market.bars.bars(benchmark.key, None, chosen.end)
    return measure(series, chosen, closes, benchmark)


def performance_record(p: Performance, with_daily: bool = True) -> dict:
    """Every figure for --json and the model's tools, money to the cent as `holdings --json` gives it."""

    def money(v: Decimal) -> float:
        return float(v.quantize(Decimal("0.01")))

    out = {
        "period": p.period.label,
        "from": p.first_day,
        "to": p.last_day,
        "start_value": money(p.start_value),
        "end_value": money(p.end_value),
        "money_in": money(p.money_in),
        "money_out": money(p.money_out),
        "profit": money(p.profit),
        "time_weighted_return": p.twr,
        "money_weighted_return_annual": p.irr,
        "money_weighted_return_period": p.irr_period,
        "max_drawdown": None if p.drawdown is None else asdict(p.drawdown),
        "annual_volatility": p.volatility,
        "best_month": None if p.best_month is None else _month_record(p.best_month, money),
        "worst_month": None if p.worst_month is None else _month_record(p.worst_month, money),
        "months": [_month_record(m, money) for m in p.months],
        "years": [_month_record(m, money) for m in p.years],
        "stocks_only": p.stocks_only,
        "carried_days": p.carried_days,
        "benchmark": None if p.benchmark is None else {"key": p.benchmark.key, "name": p.benchmark.name},
        "benchmark_return": p.benchmark_return,
        "excess_return": p.excess,
        "benchmark_note": p.benchmark_note or None,
    }
    if with_daily:
        bench = p.benchmark_daily or (None,) * len(p.daily)
        out["daily"] = [
            {"day": d, "value": v, "growth": g, "benchmark_growth": b} for (d, v, g), b in zip(p.daily, bench)
        ]
    return out


def _month_record(m: MonthReturn, money) -> dict:
    return {"period": m.month, "return": m.twr, "profit": money(m.profit)}
