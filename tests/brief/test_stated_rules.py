"""The caps, stops and plan prices the brief checks are read from the user's own words; a
sentence without a number it can act on yields nothing (never a guessed rule)."""

from __future__ import annotations

from pixiu_cli.market.analytics.rules import CAP, PLAN_ABOVE, PLAN_BELOW, ROLE_CAP, STOP, stated_rules, unique


def kinds(text, symbol=None, plan=False):
    return [(r.kind, r.symbol, r.level, r.role) for r in stated_rules(text, symbol, "n1", is_plan=plan)]


def test_the_demo_phrasings():
    assert kinds("单只个股仓位不超过总资产的25%，超过就减。") == [(CAP, None, 0.25, None)]
    assert kinds("中芯仓位上限8%，跌破95元止损一半。", "688981", plan=True) == [
        (CAP, "688981", 0.08, None),
        (STOP, "688981", 95.0, None),
    ]
    assert kinds("海康估值偏高，回踩 30 元再加仓。", "002415", plan=True) == [(PLAN_BELOW, "002415", 30.0, None)]
    assert kinds("涨到 400 元减仓一半", "300750", plan=True) == [(PLAN_ABOVE, "300750", 400.0, None)]
    assert kinds("单只个股仓位不超过总资产的25%；卫星仓合计不超过35%；不融资融券") == [
        (CAP, None, 0.25, None),
        (ROLE_CAP, None, 0.35, "satellite"),
    ]
    assert kinds("止损位 12.5 元", "000002") == [(STOP, "000002", 12.5, None)]
    for cap in ("任何一只股票仓位不超过30%", "任意一只个股最多 30%", "任一只股票不得超过总资产的30%"):
        assert kinds(cap) == [(CAP, None, 0.3, None)], cap


def test_no_number_or_no_stock_is_no_rule():
    assert kinds("我以后不再追涨杀跌。") == []
    assert kinds("跌破95元止损") == []  # a price with no stock it is about
    assert kinds("回踩 30 元再加仓", "002415", plan=False) == []  # a view or rule, not a plan
    assert kinds("每月最后一个交易日检查一次组合再平衡") == []


def test_the_same_cap_twice_is_one_rule():
    rules = stated_rules("单只个股仓位不超过25%", None, "画像") + stated_rules("单只仓位最多 25%", None, "n3")
    assert [r.origin for r in unique(rules)] == ["画像"]
