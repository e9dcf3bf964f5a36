"""Alert rules evaluated on completed bars: a rule fires on the bar where its condition
becomes true (a cross, not every day below), at most once per bar date, and then rests for
its cooldown. Prices are real (unadjusted); "yesterday" is the ex-rights reference price, so
a dividend gap never looks like a cross."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pixiu_cli.analytics.frame import Frame
from pixiu_cli.domain.analytics import AlertRule


@dataclass(frozen=True)
class Firing:
    bar_date: str
    message: str


def _conditions(rule: AlertRule, frame: Frame, cost: float | None, cost_day: str | None) -> np.ndarray | None:
    """Per bar: is the rule's condition true at that close?"""
    c, ref = frame.close, frame.reference
    if rule.kind == "below":
        return c < rule.threshold
    if rule.kind == "above":
        return c > rule.threshold
    if rule.kind == "change_pct":
        return np.abs(c / ref - 1) * 100 >= rule.threshold - 1e-9
    if cost is None:
        return None
    # the cost in today's front-adjusted terms: bonus shares and dividends since the purchase lower it
    base = int(np.searchsorted(np.asarray(frame.dates), cost_day)) if cost_day else 0
    factor = frame.adj_close / frame.close
    adjusted_cost = cost * factor[min(base, len(frame) - 1)]
    return (frame.adj_close / adjusted_cost - 1) * 100 <= -rule.threshold + 1e-9


def _message(rule: AlertRule, frame: Frame, i: int) -> str:
    price, day = frame.close[i], frame.dates[i]
    change = (frame.close[i] / frame.reference[i] - 1) * 100 if i else 0.0
    return f"{day} 收盘 {price:.2f} 元（当日 {change:+.2f}%）"


def evaluate(rule: AlertRule, frame: Frame, *, cost: float | None = None, cost_day: str | None = None) -> list[Firing]:
    """Firings on bars after `rule.checked_through` (the rule's creation day when never checked)."""
    condition = _conditions(rule, frame, cost, cost_day)
    if condition is None or len(frame) < 2:
        return []
    dates = frame.dates
    after = rule.checked_through or rule.created_at[:10]
    start = max(int(np.searchsorted(np.asarray(dates), after, side="right")), 1)
    rest_until = -1
    if rule.last_fired_on and rule.last_fired_on in dates:
        rest_until = dates.index(rule.last_fired_on) + rule.cooldown_days
    firings = []
    edge = rule.kind != "change_pct"  # a big daily move is an event every day it happens
    for i in range(start, len(dates)):
        if not condition[i] or (edge and condition[i - 1]) or i <= rest_until or not frame.traded[i]:
            continue
        firings.append(Firing(dates[i], _message(rule, frame, i)))
        rest_until = i + rule.cooldown_days
    return firings
