"""The fused signal (融合信号): a deterministic composite of trend, momentum, volatility and
drawdown from the high, on completed front-adjusted bars, with each component kept so the
block can show what the score is made of.

`pixiu signal`: the stored fused signal of each holding (or each given code) with its
components, as the context block has them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.market.analytics.engine import Frame
from pixiu_cli.market.analytics.metrics import TRADING_DAYS
from pixiu_cli.market.analytics.strategies import moving_average
from pixiu_cli.market.security_master import security_name

WEIGHTS = {"趋势": 0.35, "动量": 0.35, "波动": 0.15, "回撤": 0.15}
LEAN = 0.15  # |score| above this leans one way


@dataclass(frozen=True)
class FusedSignal:
    symbol: str
    score: float  # -1 … +1
    direction: str  # 偏多 | 偏空 | 中性
    components: dict[str, float]
    as_of: str


def _clip(value: float) -> float:
    return float(np.clip(value, -1.0, 1.0))


def fused_signal(frame: Frame) -> FusedSignal | None:
    closes = frame.adj_close
    if len(closes) < 61:
        return None
    fast, slow = moving_average(closes, 20)[-1], moving_average(closes, 60)[-1]
    daily = closes[-21:][1:] / closes[-21:][:-1] - 1
    volatility = float(daily.std(ddof=1) * np.sqrt(TRADING_DAYS))
    high = closes[-min(len(closes), TRADING_DAYS) :].max()
    components = {
        "趋势": round(_clip((fast / slow - 1) / 0.05), 2),  # MA20 5% above MA60 → +1
        "动量": round(_clip((closes[-1] / closes[-21] - 1) / 0.10), 2),  # +10% in 20 sessions → +1
        "波动": round(_clip((0.30 - volatility) / 0.30), 2),  # calm (annualised < 30%) is positive
        "回撤": round(_clip(-(1 - closes[-1] / high) / 0.30), 2),  # 30% under the one-year high → -1
    }
    score = round(sum(WEIGHTS[k] * v for k, v in components.items()), 2)
    direction = "偏多" if score > LEAN else "偏空" if score < -LEAN else "中性"
    return FusedSignal(frame.symbol, score, direction, components, frame.dates[-1])


if TYPE_CHECKING:
    from pixiu_cli.market.handle import Market


@dataclass(frozen=True)
class SignalView:
    symbol: str
    name: str | None
    score: float | None  # None, like the rest, when nothing is stored for the stock
    direction: str | None
    components: dict[str, float]
    as_of: str | None


def stored_signals(market: Market, symbols: list[str] | None) -> list[SignalView]:
    """The latest stored signal of each symbol (default: every holding), in the order asked."""
    store, master = market.investor, market.securities
    names = {h.symbol: h.name for h in store.holdings()}
    wanted = symbols or list(names)
    if not wanted:
        raise RequestError("没有持仓：给出股票代码（pixiu signal 600519），或先导入持仓")
    out = []
    for symbol in dict.fromkeys(wanted):
        signal = store.latest_signal(symbol)
        name = names.get(symbol) or security_name(master, symbol)
        if signal is None:
            out.append(SignalView(symbol, name, None, None, {}, None))
        else:
            out.append(SignalView(symbol, name, signal.score, signal.direction, dict(signal.components), signal.as_of))
    return out
