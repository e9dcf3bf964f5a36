"""The backtest engine: a strategy says at each close whether it wants to hold the stock; the
engine trades at the next open under A-share rules and marks the account to market daily.

Rules: fill at the open after the signal (never at the signal's own close); no fill on a
suspended day; no buy at an open pinned at limit-up, no sell at one pinned at limit-down; no
sale on the day of purchase (T+1); orders in whole lots of 100 (STAR: 200 or more, then any number; BSE: 100 or more); commission with its
minimum, transfer fee, stamp duty on sells by date, slippage. On an ex-rights day the account
receives the cash and the bonus shares, so the gap in the real price is not a loss."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from pixiu_cli.analytics.costs import CostModel
from pixiu_cli.analytics.frame import Frame
from pixiu_cli.domain.boards import OrderSize

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


def run(frame: Frame, wants: np.ndarray, costs: CostModel, cash: float = INITIAL_CASH) -> Backtest:
    """`wants[t]`: the strategy wants to hold after the close of day t."""
    n = len(frame)
    equity, holding = np.empty(n), np.zeros(n, dtype=bool)
    result = Backtest(equity, holding)
    want = [False, *map(bool, wants[:-1])]  # what the open of day t acts on
    o, c, traded = frame.open.tolist(), frame.close.tolist(), frame.traded.tolist()
    up, down = frame.limit_up.tolist(), frame.limit_down.tolist()
    cash_ps, shares_ps, ratio = (
        frame.cash_per_share.tolist(),
        frame.shares_per_share.tolist(),
        frame.factor_ratio.tolist(),
    )
    shares, bought_on, entry_cost, received = 0.0, -1, 0.0, 0.0
    for t in range(n):
        day = frame.dates[t]
        if shares and (cash_ps[t] or shares_ps[t] or ratio[t] != 1.0):
            dividend = shares * cash_ps[t]
            cash += dividend
            received += dividend
            shares = math.floor(shares * (1 + shares_ps[t]) * ratio[t])
        if want[t] != (shares > 0):
            why = None if traded[t] else "停牌"
            if why is None and want[t] and o[t] >= up[t] - 1e-6:
                why = "开盘涨停，买不进"
            if why is None and not want[t] and o[t] <= down[t] + 1e-6:
                why = "开盘跌停，卖不出"
            if why is None and not want[t] and bought_on == t:
                why = "T+1：当日买入不能卖出"
            if why:
                result.blocked.append((day, why))
            elif want[t]:
                price = costs.fill_price(o[t], buying=True)
                count = _affordable(cash, price, frame.order_size, costs, day)
                if count:
                    fees = costs.fees(count * price, day, selling=False)
                    cash -= count * price + fees
                    shares, bought_on, entry_cost, received = float(count), t, count * price + fees, 0.0
                    result.fills.append(Fill(day, "buy", price, count, fees))
            else:
                price = costs.fill_price(o[t], buying=False)
                fees = costs.fees(shares * price, day, selling=True)
                cash += shares * price - fees
                result.fills.append(Fill(day, "sell", price, shares, fees))
                result.round_trips.append(
                    RoundTrip(frame.dates[bought_on], day, entry_cost, shares * price - fees + received)
                )
                shares = 0.0
        equity[t] = cash + shares * c[t]
        holding[t] = shares > 0
    return result
