"""One symbol's bars as numpy columns for the engine: real (unadjusted) prices to trade and
mark to market, front-adjusted closes for signals, each day's corporate action, and the
reference price and limits that decide whether an open could be traded at all.

The backtest engine: a strategy says at each close whether it wants to hold the stock; the
engine trades at the next open under A-share rules and marks the account to market daily.

Rules: fill at the open after the signal (never at the signal's own close); no fill on a
suspended day; no buy at an open pinned at limit-up, no sell at one pinned at limit-down; no
sale on the day of purchase (T+1); orders in whole lots of 100 (STAR: 200 or more, then any number; BSE: 100 or more); commission with its
minimum, transfer fee, stamp duty on sells by date, slippage. On an ex-rights day the account
receives the cash and the bonus shares, so the gap in the real price is not a loss."""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from datetime import date, timedelta

import numpy as np

from pixiu_cli.market.analytics.costs import CostModel
from pixiu_cli.market.bars import BarSeries, CorporateAction, ex_ratios
from pixiu_cli.market.securities import OrderSize, limit_schedule, listing_free_sessions, order_size


@dataclass(frozen=True)
class Frame:
    symbol: str
    dates: list[str]
    open: np.ndarray
    high: np.ndarray
    low: np.ndarray
    close: np.ndarray  # real prices: what an order fills at and a holding is worth
    adj_close: np.ndarray  # front-adjusted: what signals read, so an ex-rights gap is no crash
    adj_high: np.ndarray
    adj_low: np.ndarray
    traded: np.ndarray  # bool: the stock traded that day (not suspended, volume > 0)
    cash_per_share: np.ndarray  # paid on the ex-date, per share held the evening before
    shares_per_share: np.ndarray  # bonus and transferred shares per share on the ex-date
    factor_ratio: np.ndarray  # a source's own price ratio on the ex-date (1 elsewhere)
    reference: np.ndarray  # yesterday's close as today's limits see it (after any ex-rights)
    limit_up: np.ndarray  # price at which an open is pinned at limit-up (inf: no limit)
    limit_down: np.ndarray

    def __len__(self) -> int:
        return len(self.dates)

    @property
    def order_size(self) -> OrderSize:
        return order_size(self.symbol)

    def window(self, start: int, end: int | None = None) -> Frame:
        cut = slice(start, end)
        return Frame(self.symbol, self.dates[cut], *(getattr(self, name)[cut] for name in _ARRAYS))


_ARRAYS = (
    "open",
    "high",
    "low",
    "close",
    "adj_close",
    "adj_high",
    "adj_low",
    "traded",
    "cash_per_share",
    "shares_per_share",
    "factor_ratio",
    "reference",
    "limit_up",
    "limit_down",
)


def _events(dates: list[str], actions: list[CorporateAction]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-day cash, shares and price ratio of the actions whose ex-date falls on that day
    (or on the first traded day after it, when the ex-date itself was a suspension)."""
    n = len(dates)
    cash, shares, ratio = np.zeros(n), np.zeros(n), np.ones(n)
    seen: set[str] = set()
    for a in sorted(actions, key=lambda a: a.ex_date):
        if a.ex_date in seen:
            continue
        seen.add(a.ex_date)
        i = bisect_left(dates, a.ex_date)
        if i >= n or i == 0:
            continue
        if a.method == "cash_shares":
            cash[i] += a.cash_per_share
            shares[i] = (1 + shares[i]) * (1 + a.shares_per_share) - 1
        elif a.ratio:
            ratio[i] *= a.ratio
    return cash, shares, ratio


def _listing_free(symbol: str, dates: list[str], list_date: str | None) -> np.ndarray:
    """The sessions from the listing day that its board's rules on that day leave without a
    limit (domain/boards.py): five under a registration reform, else the listing day only —
    a one-price limit-up run from the second day (300750 in June 2018) cannot be bought into."""
    free = np.zeros(len(dates), dtype=bool)
    if list_date and dates and list_date >= dates[0]:
        start = bisect_left(dates, list_date)
        free[start : start + listing_free_sessions(symbol, list_date)] = True
    return free


def limit_array(symbol: str, dates: np.ndarray, is_st: np.ndarray) -> np.ndarray:
    """Each day's limit from the board's dated table, for ST and other days alike."""
    out = np.empty(len(dates))
    for st in (False, True):
        schedule = limit_schedule(symbol, st)
        starts = np.asarray([start for start, _ in schedule])
        limits = np.asarray([limit for _, limit in schedule])
        row = np.maximum(np.searchsorted(starts, dates, side="right") - 1, 0)
        out[is_st == st] = limits[row][is_st == st]
    return out


def adjusted_factors(raw: BarSeries, actions: list[CorporateAction]) -> np.ndarray:
    """Front-adjustment (qfq) multiplier per day: Π 1/ratio over the events after that day."""
    factors = np.ones(len(raw))
    for event in ex_ratios(raw, actions):
        factors[: bisect_left(raw.dates, event.ex_date)] /= event.ratio
    return factors


def build_frame(raw: BarSeries, actions: list[CorporateAction], *, list_date: str | None = None) -> Frame:
    """`raw`: unadjusted bars; the front-adjusted columns are derived here with the same
    event ratios `pixiu data bars --adjust qfq` uses."""
    dates = list(raw.dates)
    o, h, lo, c = (np.asarray(getattr(raw, k), dtype=float) for k in ("open", "high", "low", "close"))
    volume = np.asarray(raw.volume, dtype=float)
    traded = (np.asarray(raw.trade_status, dtype=int) == 1) & (volume > 0)
    cash, shares, ratio = _events(dates, actions)
    reference = np.empty_like(c)
    reference[0] = np.nan
    reference[1:] = ((c[:-1] - cash[1:]) / (1 + shares[1:])) / ratio[1:]
    limits = limit_array(raw.symbol, np.asarray(dates), np.asarray(raw.is_st, dtype=bool))
    free = _listing_free(raw.symbol, dates, list_date) | np.isnan(reference)
    up = np.where(free, np.inf, np.round(reference * (1 + limits) + 1e-9, 2))
    down = np.where(free, -np.inf, np.round(reference * (1 - limits) + 1e-9, 2))
    factor = adjusted_factors(raw, actions)
    return Frame(
        raw.symbol,
        dates,
        o,
        h,
        lo,
        c,
        c * factor,
        h * factor,
        lo * factor,
        traded,
        cash,
        shares,
        ratio,
        reference,
        up,
        down,
    )


def three_year_start(dates: list[str], years: int = 3) -> int:
    """Index of the first bar inside the `years` before the last bar."""
    if not dates:
        return 0
    last = date.fromisoformat(dates[-1])
    cutoff = (
        last.replace(year=last.year - years) + timedelta(days=1)
        if not (last.month == 2 and last.day == 29)
        else date(last.year - years, 3, 1)
    )
    return bisect_left(dates, cutoff.isoformat())  # dates ascend: no numpy copy of them


INITIAL_CASH = 1_000_000.0


@dataclass(frozen=True)
class Fill:
    day: str
    side: str  # buy | sell
    price: float
    shares: float
    fees: float


@dataclass(frozen=True)
class RoundTrip:
    entry_day: str
    exit_day: str
    cost: float  # what the buy took out of cash, fees included
    proceeds: float  # what the sell put back, fees deducted, plus dividends received meanwhile

    @property
    def pnl(self) -> float:
        return self.proceeds - self.cost


@dataclass
class Backtest:
    equity: np.ndarray
    holding: np.ndarray  # bool per day: shares held at the close
    fills: list[Fill] = field(default_factory=list)
    round_trips: list[RoundTrip] = field(default_factory=list)
    blocked: list[tuple[str, str]] = field(default_factory=list)  # (day, why) an order could not fill


def _affordable(cash: float, price: float, size: OrderSize, costs: CostModel, day: str) -> int:
    """The most shares an order of this board may hold that the cash pays for, fees
    included (0 below the board's minimum)."""
    per_share = price * (1 + costs.commission_rate + costs.transfer_rate(day))
    shares = math.floor(cash / per_share)
    shares -= (shares - size.minimum) % size.step if shares >= size.minimum else shares
    while shares >= size.minimum and shares * price + costs.fees(shares * price, day, False) > cash:
        shares -= size.step
    return shares if shares >= size.minimum else 0


@dataclass
class _Account:
    cash: float
    shares: float = 0.0
    bought_on: int = -1  # the day of the last buy (T+1)
    entry_cost: float = 0.0
    received: float = 0.0  # dividends since the last buy


@dataclass(frozen=True)
class _Days:
    """The frame's columns as Python lists: per-day arithmetic on Python floats is the same
    IEEE arithmetic as numpy's, without a numpy scalar per operation."""

    open: list[float]
    traded: list[bool]
    up: list[float]
    down: list[float]
    cash_ps: list[float]
    shares_ps: list[float]
    ratio: list[float]

    @classmethod
    def of(cls, frame: Frame) -> _Days:
        columns = (frame.open, frame.traded, frame.limit_up, frame.limit_down)
        events = (frame.cash_per_share, frame.shares_per_share, frame.factor_ratio)
        return cls(*(column.tolist() for column in columns + events))


def _blocked(t: int, wants: bool, a: _Account, d: _Days) -> str | None:
    if not d.traded[t]:
        return "停牌"
    if wants and d.open[t] >= d.up[t] - 1e-6:
        return "开盘涨停，买不进"
    if not wants and d.open[t] <= d.down[t] + 1e-6:
        return "开盘跌停，卖不出"
    if not wants and a.bought_on == t:
        return "T+1：当日买入不能卖出"
    return None


def _buy(t: int, frame: Frame, a: _Account, d: _Days, costs: CostModel, result: Backtest) -> None:
    day, price = frame.dates[t], costs.fill_price(d.open[t], buying=True)
    count = _affordable(a.cash, price, frame.order_size, costs, day)
    if count:
        fees = costs.fees(count * price, day, selling=False)
        a.cash -= count * price + fees
        a.shares, a.bought_on, a.entry_cost, a.received = float(count), t, count * price + fees, 0.0
        result.fills.append(Fill(day, "buy", price, count, fees))


def _sell(t: int, frame: Frame, a: _Account, d: _Days, costs: CostModel, result: Backtest) -> None:
    day, price = frame.dates[t], costs.fill_price(d.open[t], buying=False)
    fees = costs.fees(a.shares * price, day, selling=True)
    a.cash += a.shares * price - fees
    result.fills.append(Fill(day, "sell", price, a.shares, fees))
    result.round_trips.append(
        RoundTrip(frame.dates[a.bought_on], day, a.entry_cost, a.shares * price - fees + a.received)
    )
    a.shares = 0.0


def _session(t: int, wants: bool, frame: Frame, a: _Account, d: _Days, costs: CostModel, result: Backtest) -> None:
    """Day t's open: the corporate action, then the order the last close asked for."""
    if a.shares and (d.cash_ps[t] or d.shares_ps[t] or d.ratio[t] != 1.0):
        dividend = a.shares * d.cash_ps[t]
        a.cash += dividend
        a.received += dividend
        a.shares = math.floor(a.shares * (1 + d.shares_ps[t]) * d.ratio[t])
    if wants == (a.shares > 0):
        return
    if why := _blocked(t, wants, a, d):
        result.blocked.append((frame.dates[t], why))
    elif wants:
        _buy(t, frame, a, d, costs, result)
    else:
        _sell(t, frame, a, d, costs, result)


def run(frame: Frame, wants: np.ndarray, costs: CostModel, cash: float = INITIAL_CASH) -> Backtest:
    """`wants[t]`: the strategy wants to hold after the close of day t.

    Only the days on which something can happen are walked: a corporate action, a change of
    what the strategy wants, and the days after an order that could not fill. In between,
    cash and shares stand still and the equity is marked to market for the whole stretch."""
    n = len(frame)
    equity, holding = np.empty(n), np.zeros(n, dtype=bool)
    result = Backtest(equity, holding)
    want = np.zeros(n, dtype=bool)  # what the open of day t acts on
    want[1:] = np.asarray(wants[:-1], dtype=bool)
    acts = (frame.cash_per_share != 0) | (frame.shares_per_share != 0) | (frame.factor_ratio != 1.0)
    acts[1:] |= want[1:] != want[:-1]
    marks, wanted, days, account = np.flatnonzero(acts).tolist(), want.tolist(), _Days.of(frame), _Account(cash)
    held_from, t = 0, marks[0] if marks else n
    while t < n:
        equity[held_from:t] = account.cash + account.shares * frame.close[held_from:t]
        holding[held_from:t] = account.shares > 0
        _session(t, wanted[t], frame, account, days, costs, result)
        held_from = t
        if wanted[t] != (account.shares > 0):  # the order did not fill: try again tomorrow
            t += 1
        else:
            later = bisect_right(marks, t)
            t = marks[later] if later < len(marks) else n
    equity[held_from:] = account.cash + account.shares * frame.close[held_from:]
    holding[held_from:] = account.shares > 0
    return result
