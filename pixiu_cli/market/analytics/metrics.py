"""Figures of one backtest, each defined so an investor can recompute it: returns and drawdown
from the daily mark-to-market equity, Sharpe from daily returns over a stated risk-free rate,
win rate over closed round trips together with how many there were.

沪深300 as the yardstick: its move over the same sessions a profile or a decision is scored
on. The index has no corporate actions, so its stored closes are its adjusted series (read
with the same qfq adjustment the stocks use). Without stored 沪深300 bars nothing is said."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass

import numpy as np

from pixiu_cli.market.analytics.engine import Backtest
from pixiu_cli.market.bars import CSI300
from pixiu_cli.market.data import MarketData

TRADING_DAYS = 243  # A-share sessions in a year
RISK_FREE = 0.015  # annual, for Sharpe
FEW_TRADES = 10  # below this many closed round trips a win rate says little: 样本不足


@dataclass(frozen=True)
class Metrics:
    annual_return: float
    max_drawdown: float  # negative fraction
    sharpe: float | None
    win_rate: float | None
    trades: int  # closed round trips
    exposure: float  # fraction of days holding

    @property
    def few_trades(self) -> bool:
        return self.trades < FEW_TRADES


def part(result: Backtest, dates: list[str], lo: int, hi: int | None = None) -> tuple[Backtest, float]:
    """Days [lo, hi) of one run, and the equity it started them with: the same trades, so a
    window's figures never depend on where another window's run happened to start."""
    hi = len(dates) if hi is None else hi
    first, last = dates[lo], dates[hi - 1]
    trips = [t for t in result.round_trips if first <= t.exit_day <= last]
    start = result.equity[lo - 1] if lo > 0 else None
    return Backtest(result.equity[lo:hi], result.holding[lo:hi], round_trips=trips), start


def measure(result: Backtest, start_cash: float) -> Metrics:
    equity = np.concatenate([[start_cash], result.equity])
    years = max(len(result.equity), 1) / TRADING_DAYS
    growth = equity[-1] / equity[0]
    annual = growth ** (1 / years) - 1 if growth > 0 else -1.0
    drawdown = float((equity / np.maximum.accumulate(equity) - 1).min())
    daily = equity[1:] / equity[:-1] - 1
    excess = daily - RISK_FREE / TRADING_DAYS
    spread = excess.std(ddof=1) if len(excess) > 1 else 0.0
    sharpe = float(excess.mean() / spread * np.sqrt(TRADING_DAYS)) if spread > 1e-12 else None
    trips = result.round_trips
    win = sum(1 for t in trips if t.pnl > 0) / len(trips) if trips else None
    return Metrics(
        float(annual), drawdown, sharpe, win, len(trips), float(result.holding.mean()) if len(result.holding) else 0.0
    )


class BenchmarkCloses:
    """沪深300's closes by date, read once."""

    name = CSI300.name

    def __init__(self, market: MarketData):
        series = market.bars(CSI300.key, "qfq")
        self.dates, self.close = list(series.dates), list(series.close)
        self._by_date = dict(zip(self.dates, self.close))

    def __bool__(self) -> bool:
        return bool(self.dates)

    def move(self, start_day: str, end_day: str) -> float | None:
        """From the close of start_day to the close of end_day; None when either is missing."""
        start, end = self._by_date.get(start_day), self._by_date.get(end_day)
        return end / start - 1 if start and end else None

    def annual_return(self, window_start: str, window_end: str) -> float | None:
        """Annualised as a profile's equity is: from the close before the window's first
        session to the close of its last, over the sessions in between (243 a year). None
        unless the bars reach from before the window to its end."""
        first, last = bisect_left(self.dates, window_start), bisect_right(self.dates, window_end) - 1
        if first == 0 or last < first or self.dates[last] != window_end:
            return None
        growth = self.close[last] / self.close[first - 1]
        return growth ** (TRADING_DAYS / (last - first + 1)) - 1
