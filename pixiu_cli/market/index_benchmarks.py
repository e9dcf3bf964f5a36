"""The index benchmarks a default sync keeps current and excess returns are measured
against. Their bars are stored under the exchange-prefixed code (`sh000300`), never the bare
six digits: 000001 is 上证指数 on Shanghai and 平安银行 on Shenzhen, and one key for both
would mix an index's bars into a stock's series."""

from __future__ import annotations

import re
import unicodedata
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

    @property
    def shares_stock_codes(self) -> bool:
        """Its six digits are also in a stock's range: Shanghai's index codes (000xxx) are
        Shenzhen's main-board stock codes, while Shenzhen's 399xxx are indexes only."""
        return not self.code.startswith("399")


CSI300 = Benchmark("000300", "sh", "沪深300")
BENCHMARKS = (CSI300, Benchmark("000001", "sh", "上证指数"), Benchmark("399006", "sz", "创业板指"))
_BY_KEY = {b.key: b for b in BENCHMARKS}
_BY_NAME = {b.name.lower(): b for b in BENCHMARKS}

# sh000300, sh.000300, 000300.sh (the exchange in any case, after NFKC folds full width)
_PREFIXED = re.compile(r"(?:(sh|sz|bj)\.?([0-9]{6})|([0-9]{6})\.(sh|sz|bj))")


def benchmark_for(symbol: str) -> Benchmark | None:
    """The benchmark stored under this symbol; None for a stock's six digits."""
    return _BY_KEY.get(symbol)


def exchange_spelling(raw: str) -> tuple[str, str] | None:
    """(exchange, six digits) of a code written with its exchange (SH000300, 000300.SH,
    sh.000300); None for anything else, a bare code included."""
    found = _PREFIXED.fullmatch(unicodedata.normalize("NFKC", raw).strip().lower())
    if found is None:
        return None
    exchange, code, suffixed_code, suffix = found.groups()
    return (exchange, code) if exchange else (suffix, suffixed_code)


def benchmark_spelled(raw: str) -> Benchmark | None:
    """The benchmark named by its exchange and code in any spelling, or by its name."""
    spelled = exchange_spelling(raw)
    if spelled:
        return _BY_KEY.get("".join(spelled))
    return _BY_NAME.get(unicodedata.normalize("NFKC", raw).strip().lower())


def benchmark_with_code(code: str) -> Benchmark | None:
    """The benchmark whose bare six digits these are (000300, 399006)."""
    return next((b for b in BENCHMARKS if b.code == code), None)


def benchmark_list() -> str:
    """The benchmarks as a user reads them: 沪深300（sh000300）、…"""
    return "、".join(f"{b.name}（{b.key}）" for b in BENCHMARKS)
