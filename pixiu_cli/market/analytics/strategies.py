"""The fixed set of strategies a profile is made of. Each reads front-adjusted prices up to
and including day t and says whether to hold after day t's close; none looks ahead."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pixiu_cli.market.analytics.engine import Frame


def moving_average(values: np.ndarray, window: int) -> np.ndarray:
    out = np.full(len(values), np.nan)
    if len(values) >= window:
        sums = np.cumsum(np.insert(values, 0, 0.0))
        out[window - 1 :] = (sums[window:] - sums[:-window]) / window
    return out


def rolling_extreme(values: np.ndarray, window: int, use_max: bool) -> np.ndarray:
    """The max (or min) of the `window` days BEFORE each day (today excluded)."""
    out = np.full(len(values), np.nan)
    if len(values) > window:
        view = np.lib.stride_tricks.sliding_window_view(values, window)[:-1]
        out[window:] = view.max(axis=1) if use_max else view.min(axis=1)
    return out


def rsi(closes: np.ndarray, period: int = 14) -> np.ndarray:
    """Wilder's RSI."""
    out = np.full(len(closes), np.nan)
    if len(closes) <= period:
        return out
    change = np.diff(closes)
    gain, loss = np.clip(change, 0, None), np.clip(-change, 0, None)
    avg_gain, avg_loss = float(gain[:period].mean()), float(loss[:period].mean())
    # Wilder's smoothing is a recurrence: a loop, on Python floats (numpy's arithmetic to
    # the bit, without a numpy scalar per step)
    gains, losses, values = gain.tolist(), loss.tolist(), []
    for i in range(period, len(change) + 1):
        if i > period:
            avg_gain = (avg_gain * (period - 1) + gains[i - 1]) / period
            avg_loss = (avg_loss * (period - 1) + losses[i - 1]) / period
        values.append(100.0 if avg_loss == 0 else 100 - 100 / (1 + avg_gain / avg_loss))
    out[period:] = values
    return out


def _or(values: np.ndarray, missing: float) -> np.ndarray:
    """`values` with NaN (a window not yet full) read as `missing`. np.nan_to_num would
    also clip infinities, which finite prices never produce, and costs ten times more."""
    return np.where(np.isnan(values), missing, values)


def hold_between(enter: np.ndarray, leave: np.ndarray) -> np.ndarray:
    """In from an `enter` day until the next `leave` day (a day with both stays as it was)."""
    state = np.where(enter & ~leave, 1.0, np.where(leave & ~enter, 0.0, np.nan))
    filled = _or(state, -1.0)
    index = np.where(filled >= 0, np.arange(len(state)), 0)
    np.maximum.accumulate(index, out=index)
    carried = filled[index]
    return carried == 1.0


def buy_and_hold(frame: Frame) -> np.ndarray:
    return np.ones(len(frame), dtype=bool)


def ma_trend(frame: Frame) -> np.ndarray:
    fast, slow = moving_average(frame.adj_close, 20), moving_average(frame.adj_close, 60)
    return _or(fast, 0.0) > _or(slow, np.inf)


def breakout(frame: Frame) -> np.ndarray:
    highest, lowest = rolling_extreme(frame.adj_high, 20, True), rolling_extreme(frame.adj_low, 10, False)
    enter = frame.adj_close > _or(highest, np.inf)
    leave = frame.adj_close < _or(lowest, -np.inf)
    return hold_between(enter, leave)


def rsi_reversion(frame: Frame) -> np.ndarray:
    values = _or(rsi(frame.adj_close), 50.0)
    return hold_between(values < 30, values > 55)


STRATEGIES: dict[str, tuple[str, Callable[[Frame], np.ndarray]]] = {
    "buy_and_hold": ("买入持有", buy_and_hold),
    "ma_trend": ("MA20/MA60 趋势", ma_trend),
    "breakout": ("20 日突破", breakout),
    "rsi_reversion": ("RSI 均值回归", rsi_reversion),
}
