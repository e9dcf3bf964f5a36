"""Signals, alert rules and the track record on bars whose answers are known."""

from __future__ import annotations

import numpy as np
import pytest

from pixiu_cli.home.model import Decision
from pixiu_cli.market.analytics.model import AlertRule
from pixiu_cli.market.analytics.refresh import evaluate, score
from pixiu_cli.market.analytics.signals import fused_signal
from pixiu_cli.market.bars import CorporateAction
from tests.helpers import frame_of


def rule(kind, threshold, checked=None, cooldown=5, last=None):
    return AlertRule(1, "600000", kind, threshold, cooldown, "2024-03-04T09:00:00+08:00", "手动", checked, last)


def test_fused_signal_reads_trend_momentum_volatility_and_drawdown():
    rising = frame_of("600000", list(np.linspace(10, 20, 120)))
    up = fused_signal(rising)
    assert up.direction == "偏多" and up.score > 0.5 and up.components["回撤"] == 0
    assert set(up.components) == {"趋势", "动量", "波动", "回撤"} and up.as_of == rising.dates[-1]
    falling = fused_signal(frame_of("600000", list(np.linspace(20, 10, 120))))
    assert falling.direction == "偏空" and falling.components["回撤"] < -0.9
    assert fused_signal(frame_of("600000", [10] * 30)) is None  # too short to say anything


def test_signal_does_not_see_an_ex_rights_gap_as_a_fall():
    closes = [33.0] * 100 + [21.2] * 20
    actions = [CorporateAction("000333", frame_of("000333", closes).dates[100], 1.2, 0.5)]
    signal = fused_signal(frame_of("000333", closes, actions))
    assert signal.components["动量"] == 0 and signal.components["回撤"] == 0 and signal.direction == "中性"


def test_below_fires_on_the_cross_not_every_day_below():
    frame = frame_of("600000", [10, 9.9, 9.4, 9.3, 9.2, 9.8, 9.1, 9.0])
    firings = evaluate(rule("below", 9.5, cooldown=0), frame)
    assert [f.bar_date for f in firings] == [frame.dates[2], frame.dates[6]]
    assert "9.40" in firings[0].message


def test_cooldown_and_checked_through():
    frame = frame_of("600000", [10, 9.4, 9.8, 9.3, 9.9, 9.2])
    assert [f.bar_date for f in evaluate(rule("below", 9.5, cooldown=3), frame)] == [frame.dates[1], frame.dates[5]]
    later = evaluate(rule("below", 9.5, checked=frame.dates[3], cooldown=0), frame)
    assert [f.bar_date for f in later] == [frame.dates[5]]  # bars already checked never fire again
    resting = evaluate(rule("below", 9.5, checked=frame.dates[3], cooldown=5, last=frame.dates[1]), frame)
    assert resting == []  # still inside the cooldown of the last firing


def test_above_change_pct_and_drawdown_from_cost():
    frame = frame_of("600000", [10, 10.2, 10.6, 10.4, 11.5])
    assert [f.bar_date for f in evaluate(rule("above", 10.5), frame)] == [frame.dates[2]]
    big = evaluate(rule("change_pct", 5, cooldown=0), frame)
    assert [f.bar_date for f in big] == [frame.dates[4]]  # +10.6%
    falling = frame_of("600000", [10, 9.5, 8.9, 8.5, 8.7])
    hit = evaluate(rule("drawdown_from_cost", 10), falling, cost=10.0, cost_day=falling.dates[0])
    assert [f.bar_date for f in hit] == [falling.dates[2]]


def test_dividend_gap_is_not_a_cross():
    closes = [33.0, 33.0, 21.2, 21.2]
    actions = [CorporateAction("000333", frame_of("000333", closes).dates[2], 1.2, 0.5)]
    frame = frame_of("000333", closes, actions)
    assert evaluate(rule("change_pct", 5), frame) == []
    assert evaluate(rule("drawdown_from_cost", 10), frame, cost=33.0, cost_day=frame.dates[0]) == []


def test_track_scores_from_the_bars_after_the_decision():
    frame = frame_of("600000", [10] + [10.0 + i * 0.1 for i in range(1, 30)])
    day = frame.dates[1]
    buy = Decision(7, "600000", "buy", 10.0, 100, "", f"{day}T10:00:00+08:00")
    s = score(buy, frame, "now")
    assert s.return_5d == pytest.approx(frame.close[6] / 10.0 - 1)
    assert s.return_20d == pytest.approx(frame.close[21] / 10.0 - 1)
    assert s.outcome_20d == pytest.approx(s.return_20d)
    assert s.vs_stock_5d == pytest.approx(s.return_5d - (frame.close[6] / frame.close[1] - 1))
    sell = score(Decision(8, "600000", "sell", 10.0, 100, "", f"{day}T10:00:00+08:00"), frame, "now")
    assert sell.outcome_5d == pytest.approx(-s.return_5d)  # selling before a rise cost money
    late = score(Decision(9, "600000", "buy", 12, 100, "", f"{frame.dates[-3]}T10:00:00+08:00"), frame, "now")
    assert late.return_5d is None and late.return_20d is None  # not enough bars yet
    early = score(Decision(10, "600000", "buy", 12, 100, "", "2020-01-02T10:00:00+08:00"), frame, "now")
    assert early.return_5d is None  # before the stored bars: nothing to score against
