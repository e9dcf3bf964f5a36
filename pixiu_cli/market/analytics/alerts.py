"""Alert rules evaluated on completed bars: a rule fires on the bar where its condition
becomes true (a cross, not every day below), at most once per bar date, and then rests for
its cooldown. Prices are real (unadjusted); "yesterday" is the ex-rights reference price, so
a dividend gap never looks like a cross. The cost of a drawdown-from-cost rule is adjusted
from the day it was recorded, so the frame handed in must reach back to that day."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pixiu_cli.market.analytics.engine import Frame
from pixiu_cli.market.analytics.model import AlertRule


@dataclass(frozen=True)
class Firing:
    bar_date: str
    message: str


def _conditions(
    rule: AlertRule, frame: Frame, cost: float | None, cost_day: str | None
) -> tuple[np.ndarray, np.ndarray] | None:
    """Per bar: is the rule's condition true at that close, and was it true the day before?
    For a price line "the day before" is the reference price (yesterday's close after any
    ex-rights that morning), so a dividend gap across the line is no cross."""
    c, ref = frame.close, frame.reference
    if rule.kind == "below":
        return c < rule.threshold, ref < rule.threshold
    if rule.kind == "above":
        return c > rule.threshold, ref > rule.threshold
    if rule.kind == "change_pct":
        today = np.abs(c / ref - 1) * 100 >= rule.threshold - 1e-9
        return today, np.zeros(len(frame), dtype=bool)  # a big daily move is an event every day it happens
    if cost is None:
        return None
    # the cost in today's front-adjusted terms: bonus shares and dividends since the purchase lower it
    base = int(np.searchsorted(np.asarray(frame.dates), cost_day)) if cost_day else 0
    factor = frame.adj_close / frame.close
    adjusted_cost = cost * factor[min(base, len(frame) - 1)]
    today = (frame.adj_close / adjusted_cost - 1) * 100 <= -rule.threshold + 1e-9
    return today, np.concatenate([[False], today[:-1]])


def _message(rule: AlertRule, frame: Frame, i: int) -> str:
    price, day = frame.close[i], frame.dates[i]
    change = (frame.close[i] / frame.reference[i] - 1) * 100 if i else 0.0
    return f"{day} 收盘 {price:.2f} 元（当日 {change:+.2f}%）"


def evaluate(rule: AlertRule, frame: Frame, *, cost: float | None = None, cost_day: str | None = None) -> list[Firing]:
    """Firings on bars after `rule.checked_through` (the rule's creation day when never checked)."""
    conditions = _conditions(rule, frame, cost, cost_day)
    if conditions is None or len(frame) < 2:
        return []
    condition, before = conditions
    dates = frame.dates
    after = rule.checked_through or rule.created_at[:10]
    start = max(int(np.searchsorted(np.asarray(dates), after, side="right")), 1)
    rest_until = -1
    if rule.last_fired_on and rule.last_fired_on in dates:
        rest_until = dates.index(rule.last_fired_on) + rule.cooldown_days
    firings = []
    for i in range(start, len(dates)):
        if not condition[i] or before[i] or i <= rest_until or not frame.traded[i]:
            continue
        firings.append(Firing(dates[i], _message(rule, frame, i)))
        rest_until = i + rule.cooldown_days
    return firings
