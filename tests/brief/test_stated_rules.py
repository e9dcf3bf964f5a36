"""The caps, stops and plan prices the brief checks are read from the user's own words; a
sentence without a number it can act on yields nothing (never a guessed rule)."""

from __future__ import annotations

from pixiu_cli.market.analytics.rules import (
    CAP,
    CASH_MIN,
    INDUSTRY_CAP,
    PLAN_ABOVE,
    PLAN_BELOW,
    ROLE_CAP,
    STOP,
    TOTAL_CAP,
    level_fraction,
    stated_rules,
    unique,
)


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


def caps(text, symbol=None):
    return [(r.kind, r.symbol, r.level, r.industries) for r in stated_rules(text, symbol, "n1")]


def test_a_level_is_read_as_a_percentage_a_chinese_percentage_or_tenths():
    assert caps("单只股票仓位不超过20%") == [(CAP, None, 0.2, ())]
    assert caps("单票不超过两成") == [(CAP, None, 0.2, ())]
    assert caps("任何一只不超过 30%") == [(CAP, None, 0.3, ())]
    assert caps("单只仓位不超过百分之二十五") == [(CAP, None, 0.25, ())]
    assert caps("单只最多三成半") == [(CAP, None, 0.35, ())]
    assert caps("单票不超过百分之十") == [(CAP, None, 0.1, ())]


def test_an_industry_cap_names_the_industries_as_the_security_list_spells_them():
    assert caps("银行股不超过40%") == [(INDUSTRY_CAP, None, 0.4, ("银行",))]
    assert caps("白酒行业仓位最多30%") == [(INDUSTRY_CAP, None, 0.3, ("白酒",))]
    assert caps("银行仓位不超过百分之四十") == [(INDUSTRY_CAP, None, 0.4, ("银行",))]
    assert caps("券商和保险合计不超过三成") == [(INDUSTRY_CAP, None, 0.3, ("证券", "保险"))]
    assert caps("酿酒板块不超过两成") == [(INDUSTRY_CAP, None, 0.2, ("白酒", "啤酒", "红黄酒"))]
    assert caps("铜行业不超过10%") == [(INDUSTRY_CAP, None, 0.1, ("铜",))]


def test_the_stocks_total_and_the_cash_floor():
    assert caps("仓位不超过八成") == [(TOTAL_CAP, None, 0.8, ())]
    assert caps("现金至少留10%") == [(CASH_MIN, None, 0.1, ())]
    assert caps("至少留一成现金") == [(CASH_MIN, None, 0.1, ())]
    # with a stock named the same words cap that stock, as before
    assert caps("仓位不超过八成", "600519") == [(CAP, "600519", 0.8, ())]


def test_a_waived_or_unreadable_cap_is_no_cap():
    assert caps("不要求单票上限") == []
    assert caps("不要求单票上限20%") == []
    assert caps("单票不设上限，仓位最多八成") == [(TOTAL_CAP, None, 0.8, ())]  # the waiver is its own clause
    assert caps("银行股少买点") == []
    assert caps("成本不超过10元") == []  # 元 is a price, not a share
    assert caps("保险起见仓位不超过八成") == [(TOTAL_CAP, None, 0.8, ())]  # 保险起见 is no industry
    assert caps("铜不超过10%") == []  # a one-character industry needs its 行业 / 板块 / 股
    assert caps("单只不超过十成本") == []


def test_level_fraction():
    assert [level_fraction(t) for t in ("25%", "7.5％", "百分之二十", "百分之五", "两成", "8成", "五成半")] == [
        0.25,
        0.075,
        0.2,
        0.05,
        0.2,
        0.8,
        0.55,
    ]
    assert level_fraction("百分之一百二") is None
