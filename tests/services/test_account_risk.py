"""Where the risk of a real account sits (account/risk.py): its weights by industry (the
shipped security list's), the largest stock, and the user's own caps checked against them,
on a SQLite file with trades told one at a time and a stated cash balance."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest

from pixiu_cli.account.handle import Account
from pixiu_cli.account.overview import read_account, set_cash
from pixiu_cli.account.risk import UNCLASSIFIED, account_risk, caps_in_force, industry_weights
from pixiu_cli.account.trades import NewTrade, record_trade
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.analytics.rules import CAP, CASH_MIN, INDUSTRY_CAP, ROLE_CAP, TOTAL_CAP, stated_rules
from pixiu_cli.market.calendar import SHANGHAI
from pixiu_cli.memory.handle import Memory
from pixiu_cli.memory.notes import NewNote, add_note

NOW = datetime(2025, 8, 20, 16, 0, tzinfo=SHANGHAI)
# 贵州茅台 and 五粮液 are 白酒, 招商银行 银行, 中芯国际 半导体 in the shipped list; values at cost
# (no bars stored), no fees: 150,000 + 120,000 + 80,000 + 50,000 = 400,000 of stocks
BUYS = (("600519", 100, 1500), ("000858", 1000, 120), ("600036", 2000, 40), ("688981", 500, 100))


@pytest.fixture
def account(tmp_path):
    db = open_database(tmp_path / "pixiu.db")
    account = Account(db)
    for symbol, shares, price in BUYS:
        record_trade(
            account, NewTrade(symbol, "buy", price, shares, None, None, "user", "2025-08-18", 0.0), NOW.isoformat()
        )
    yield account
    db.close()


def rules(*texts):
    return [r for text in texts for r in stated_rules(text, None, "n1")]


def test_industry_weights_without_cash_are_of_the_stocks(account):
    view = read_account(account, NOW)
    weights = {
        w.industry: (w.value, w.of_stocks, w.of_assets, w.symbols)
        for w in industry_weights(view, {"600519": "白酒", "000858": "白酒", "600036": "银行"})
    }
    assert weights == {
        "白酒": (Decimal(270000), Decimal("0.675"), None, ("600519", "000858")),
        "银行": (Decimal(80000), Decimal("0.2"), None, ("600036",)),
        UNCLASSIFIED: (Decimal(50000), Decimal("0.125"), None, ("688981",)),
    }


def test_the_shipped_list_gives_the_industries_and_the_caps_are_checked(account):
    set_cash(account, 100000, "2025-08-19", NOW)  # total assets 500,000
    view = read_account(account, NOW)
    risk = account_risk(
        view, rules("单票不超过两成", "白酒行业仓位最多30%", "银行股不超过40%", "仓位不超过八成", "现金至少留25%")
    )
    assert [(w.industry, w.of_stocks, w.of_assets) for w in risk.industries] == [
        ("白酒", Decimal("0.675"), Decimal("0.54")),
        ("银行", Decimal("0.2"), Decimal("0.16")),
        ("半导体", Decimal("0.125"), Decimal("0.1")),
    ]
    assert (risk.concentration.largest_symbol, risk.concentration.largest_weight) == ("600519", Decimal("0.3"))
    assert risk.of_assets and risk.cash == Decimal("0.2")
    checked = [(c.rule.kind, c.symbol, c.actual, c.within, c.beyond, c.over) for c in risk.caps]
    assert checked == [
        ("cap", "600519", Decimal("0.3"), False, Decimal("0.1"), ("600519", "000858")),  # 30% and 24% of 500,000
        (INDUSTRY_CAP, None, Decimal("0.54"), False, Decimal("0.24"), ()),
        (INDUSTRY_CAP, None, Decimal("0.16"), True, Decimal("-0.24"), ()),
        (TOTAL_CAP, None, Decimal("0.8"), True, Decimal("0.0"), ()),
        (CASH_MIN, None, Decimal("0.2"), False, Decimal("0.05"), ()),
    ]


def test_without_cash_the_total_and_the_cash_floor_stay_unchecked(account):
    risk = account_risk(read_account(account, NOW), rules("仓位不超过八成", "现金至少留10%", "单只不超过40%"))
    assert [(c.rule.kind, c.actual, c.within) for c in risk.caps] == [
        (TOTAL_CAP, None, None),
        (CASH_MIN, None, None),
        ("cap", Decimal("0.375"), True),  # of the stocks: 150,000 / 400,000
    ]
    assert not risk.of_assets and risk.cash is None


def test_the_caps_in_force_are_the_rule_notes_and_the_persona_not_views_or_withdrawn_rules(account):
    memory = Memory(account.db, home=account.home, market=account.market, account=account)
    stamp = NOW.isoformat(timespec="seconds")
    add_note(memory, NewNote("rule", "银行股不超过40%", None, "user"), stamp)
    add_note(memory, NewNote("view", "白酒行业仓位最多30%", None, "user"), stamp)  # a view states no rule
    gone = add_note(memory, NewNote("rule", "单票不超过两成", None, "user"), stamp)
    memory.store.forget(gone.event.id, stamp)
    account.db.execute("insert into persona (key, value) values ('constraints', '现金至少留10%')")
    found = caps_in_force(memory.investor, NOW)
    assert sorted((r.kind, r.level, r.industries, r.origin[:2]) for r in found) == [
        (CASH_MIN, 0.1, (), "画像"),
        (INDUSTRY_CAP, 0.4, ("银行",), "笔记"),
    ]


def test_a_rule_about_one_stock_caps_that_stock_and_a_role_cap_its_role(account):
    stated = [
        *stated_rules("仓位上限10%", "688981", "n1"),
        *stated_rules("卫星仓合计不超过35%", None, "n2"),
        *stated_rules("仓位上限10%", "000001", "n3"),  # a stock not held
        *stated_rules("跌破95元止损", "688981", "n4"),  # a stop is no cap: not checked here
    ]
    checks = account_risk(read_account(account, NOW), stated, {}).caps
    assert [(c.rule.kind, c.symbol, c.actual, c.within) for c in checks] == [
        (CAP, "688981", Decimal("0.125"), False),  # 50,000 of the 400,000 of stocks (no cash)
        (ROLE_CAP, None, Decimal(1), False),  # a stock bought with `pixiu trade` is a 卫星仓
        (CAP, "000001", Decimal(0), True),
    ]
