"""沪深300 as the yardstick: its move over the same sessions a profile or a decision is scored
on. The index has no corporate actions, so its stored closes are its adjusted series (read
with the same qfq adjustment the stocks use). Without stored 沪深300 bars nothing is said."""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from pixiu_cli.market.analytics.metrics import TRADING_DAYS
from pixiu_cli.market.data import MarketData
from pixiu_cli.market.index_benchmarks import CSI300


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
