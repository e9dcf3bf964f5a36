"""Adjusted prices, computed on read from unadjusted bars and corporate actions.

Each ex-rights day e has a ratio r_e = P / ((P − cash) / (1 + shares)), P being the
unadjusted close before e (or the source's own factor when it gave one). Then

    qfq (前复权) price on day t = unadjusted × Π 1/r_e over events with ex_date > t
    hfq (后复权) price on day t = unadjusted × Π r_e   over events with ex_date ≤ t

so the newest qfq prices equal the real ones and the oldest hfq prices do. Volumes are left
as traded. The same ratios undo an adjusted file on import (`unadjust`)."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from pixiu_cli.market.bars import Bar, BarSeries, CorporateAction

ADJUST_MODES = ("none", "qfq", "hfq")


@dataclass(frozen=True)
class ExRatio:
    ex_date: str
    ratio: float  # price before / reference price after (> 1 for a dividend or bonus shares)


def event_ratio(prev_close: float, action: CorporateAction) -> float | None:
    """The price ratio of one action given the unadjusted close before it (None if the
    numbers cannot describe a real event, e.g. a dividend larger than the price)."""
    if action.ratio:
        return action.ratio
    reference = (prev_close - action.cash_per_share) / (1 + action.shares_per_share)
    if prev_close <= 0 or reference <= 0:
        return None
    return prev_close / reference


def ex_ratios(
    series: BarSeries, actions: Sequence[CorporateAction], prev_close: Mapping[str, float] | None = None
) -> list[ExRatio]:
    """One ratio per ex-date (a source's own factor wins over one derived from cash/shares,
    so two sources describing the same event never count it twice). `prev_close` gives the
    close before each ex-date when `series` is only a window of the history."""
    by_date: dict[str, CorporateAction] = {}
    for a in actions:
        held = by_date.get(a.ex_date)
        if held is None or (a.ratio and not held.ratio):
            by_date[a.ex_date] = a
    out = []
    for ex_date, action in sorted(by_date.items()):
        if prev_close is not None:
            before = prev_close.get(ex_date)
        else:
            i = bisect_left(series.dates, ex_date)
            before = series.close[i - 1] if i else None
        if before is None and not action.ratio:
            continue  # no close before it in the stored bars: nothing to adjust
        ratio = event_ratio(before or 0.0, action)
        if ratio and ratio != 1.0:
            out.append(ExRatio(ex_date, ratio))
    return out


def _factors(dates: Sequence[str], ratios: list[ExRatio], mode: str) -> list[float]:
    """Per-bar multiplier for `mode`."""
    factors = []
    j, n = 0, len(ratios)
    if mode == "hfq":
        acc = 1.0
        for d in dates:
            while j < n and ratios[j].ex_date <= d:
                acc *= ratios[j].ratio
                j += 1
            factors.append(acc)
        return factors
    total = 1.0
    for r in ratios:
        total *= r.ratio
    acc = 1.0 / total  # before every event
    for d in dates:
        while j < n and ratios[j].ex_date <= d:
            acc *= ratios[j].ratio
            j += 1
        factors.append(acc)
    return factors


def adjust(
    series: BarSeries, actions: Sequence[CorporateAction], mode: str, prev_close: Mapping[str, float] | None = None
) -> BarSeries:
    if mode not in ADJUST_MODES:
        raise ValueError(f"adjust must be one of {ADJUST_MODES}")
    if mode == "none" or not len(series):
        return replace(series, adjust=mode)
    ratios = ex_ratios(series, actions, prev_close)
    f = _factors(series.dates, ratios, mode)

    def scaled(column):
        return tuple(p * k for p, k in zip(column, f))

    return BarSeries(
        series.symbol,
        mode,
        series.dates,
        scaled(series.open),
        scaled(series.high),
        scaled(series.low),
        scaled(series.close),
        series.volume,
        series.amount,
        series.trade_status,
        series.is_st,
    )


def unadjust(bars: Sequence[Bar], actions: Sequence[CorporateAction], mode: str) -> list[Bar]:
    """Real prices from a qfq or hfq file and the actions it was adjusted with. qfq: walk the
    events newest first (prices after the newest one are already real); hfq: oldest first."""
    if mode == "none":
        return list(bars)
    dates = [b.date for b in bars]
    prices = [[b.open, b.high, b.low, b.close] for b in bars]
    events = sorted({a.ex_date: a for a in actions}.values(), key=lambda a: a.ex_date)
    order = reversed(events) if mode == "qfq" else iter(events)
    for action in order:
        i = bisect_left(dates, action.ex_date)
        if i == 0 or i == len(dates):
            continue
        if mode == "qfq":
            # the close before e, still scaled by 1/r_e: it is the reference price itself
            real_prev = prices[i - 1][3] * (1 + action.shares_per_share) + action.cash_per_share
            ratio = action.ratio or real_prev / prices[i - 1][3]
            span = range(0, i)
            factor = ratio
        else:
            ratio = event_ratio(prices[i - 1][3], action)
            if not ratio:
                continue
            span = range(i, len(dates))
            factor = 1 / ratio
        for k in span:
            prices[k] = [p * factor for p in prices[k]]
    return [
        Bar(b.date, *(round(p, 4) for p in prices[k]), b.volume, b.amount, b.trade_status, b.is_st)
        for k, b in enumerate(bars)
    ]
