"""Where the risk sits, through the real command: four stocks bought with `pixiu trade`, the
cash stated, two caps written as rules with `pixiu remember`; `pixiu holdings` shows the
industries, the largest stock and each cap against them, `--json` the same under `risk`,
and the block of a portfolio question checks the caps."""

from __future__ import annotations

import json

import pytest

from tests.helpers import clean_env, in_process_ok, pixiu_ok

# values at cost, no fees: 600519 150,000 and 000858 120,000 (白酒), 600036 80,000 (银行),
# 688981 50,000 (半导体); with the cash 100,000, total assets 500,000
BUYS = (("600519", "100", "1500"), ("000858", "1000", "120"), ("600036", "2000", "40"), ("688981", "500", "100"))


@pytest.fixture
def env(pixiu_home):
    env = clean_env(pixiu_home, PIXIU_NOW="2025-08-20T16:00")
    for symbol, shares, price in BUYS:
        in_process_ok(env, "trade", "buy", symbol, shares, price, "--date", "2025-08-18", "--fee", "0")
    in_process_ok(env, "cash", "set", "100000", "--date", "2025-08-19")
    in_process_ok(env, "remember", "--kind", "rule", "单票不超过两成")
    in_process_ok(env, "remember", "--kind", "rule", "银行股不超过40%")
    in_process_ok(env, "remember", "--kind", "rule", "不要求行业上限")  # read as no cap
    return env


def test_holdings_show_where_the_risk_sits_and_each_cap(env):
    shown = pixiu_ok(env, "holdings")
    part = shown[shown.index("风险分布") :].splitlines()
    assert part[:3] == [
        "风险分布（仓位按总资产计）",
        "  行业：白酒 54.0%、银行 16.0%、半导体 10.0%",
        "  最大单只：600519 贵州茅台 30.0%；前三合计 70.0%",
    ]
    caps = [line.strip() for line in part[4:]]
    assert caps == [
        "「单票不超过两成」（笔记 n5）上限 20%：最大 600519 贵州茅台 30.0%，超出 10.0 个百分点（共 2 只超出：600519、000858）",
        "「银行股不超过40%」（笔记 n6）上限 40%：银行合计 16.0%，符合",
    ]

    risk = json.loads(pixiu_ok(env, "holdings", "--json"))["risk"]
    assert [(w["industry"], w["weight_of_assets"], w["symbols"]) for w in risk["industries"]] == [
        ("白酒", 0.54, ["600519", "000858"]),
        ("银行", 0.16, ["600036"]),
        ("半导体", 0.1, ["688981"]),
    ]
    assert [(c["kind"], c["limit"], c["actual"], c["within"], c["beyond"]) for c in risk["caps"]] == [
        ("cap", 0.2, 0.3, False, 0.1),
        ("industry_cap", 0.4, 0.16, True, -0.24),
    ]


def test_a_portfolio_question_gets_the_caps_checked(env):
    block = pixiu_ok(env, "context", "我的仓位风险大吗", "--pretty")
    assert "## 风险分布" in block
    assert "单只≤20%：最大 600519 30.0%，超出 10.0 个百分点（共 2 只超出）；银行合计≤40%：16.0%，符合" in block
    assert "行业分布（行业取自证券列表）：白酒 54.0%、银行 16.0%、半导体 10.0%" in block
    # a question about one stock does not carry the portfolio's risk
    assert "## 风险分布" not in pixiu_ok(env, "context", "茅台最近怎么样", "--pretty")
