"""The index benchmarks a default sync keeps current and excess returns are measured
against. Their bars are stored under the exchange-prefixed code (`sh000300`), never the bare
six digits: 000001 is 上证指数 on Shanghai and 平安银行 on Shenzhen, and one key for both
would mix an index's bars into a stock's series."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Benchmark:
    code: str  # the exchange's six digits
    exchange: str  # sh | sz
    name: str

    @property
    def key(self) -> str:
        """The symbol its bars are stored under."""
        return f"{self.exchange}{self.code}"


CSI300 = Benchmark("000300", "sh", "沪深300")
BENCHMARKS = (CSI300, Benchmark("000001", "sh", "上证指数"), Benchmark("399006", "sz", "创业板指"))
_BY_KEY = {b.key: b for b in BENCHMARKS}


def benchmark_for(symbol: str) -> Benchmark | None:
    """The benchmark stored under this symbol; None for a stock's six digits."""
    return _BY_KEY.get(symbol)
