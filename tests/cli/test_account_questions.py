"""Whole-account questions as a user meets them in `pixiu context --explain` (issue 53): every
holding with a verb of review (所有票列一下, 每只都看看) and the way the money is spread (这么配行不行,
仓位分布) are the whole portfolio; money set aside for a purpose (养老钱配了几成, 闲钱留够了没,
资金用了几成) is the user's own account; a named stock's dividend tax, even its rule, brings that
stock's buys of any age. A rule asked alone, all stocks as a rule's subject and somebody else's
money stay out."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import explained as explain
from tests.helpers import imported_env

ACCOUNT = Path(__file__).resolve().parents[2] / "data" / "selection" / "tune_5" / "datasets" / "account_feng.json"
NOW = "2026-12-04T20:00:00+08:00"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return imported_env(tmp_path_factory.mktemp("feng"), ACCOUNT, NOW)


def keys(info: dict) -> set[str]:
    return {s["key"] for s in info["sections"]}


@pytest.mark.parametrize(
    ("text", "cue"),
    [
        ("所有票列一下", "每只都过一遍"),
        ("每只都看看咋样", "每只都过一遍"),
        ("把所有的票都盘一盘", "每只都过一遍"),
        ("这么配行不行", "这么配"),
        ("这样配合理吗", "这么配"),
    ],
)
def test_every_holding_or_the_allocation_is_the_portfolio(home, text, cue):
    info = explain(home, text)
    assert info["selection"]["intent"] == "portfolio_review"
    assert "portfolio_profiles" in keys(info)
    assert cue in [c["name"] for c in info["selection"]["cues"]]


@pytest.mark.parametrize("text", ["养老钱配了几成股票", "闲钱留够了没", "资金用了几成"])
def test_money_set_aside_for_a_purpose_is_the_account(home, text):
    info = explain(home, text)
    assert info["selection"]["intent"] == "portfolio_review"
    assert "portfolio_profiles" in keys(info)
    assert "account" in info["selection"]["targets"]


@pytest.mark.parametrize(
    ("text", "symbol"), [("股息红利税怎么扣的 我的招行", "600036"), ("长电的红利税按多久算", "600900")]
)
def test_a_named_stocks_dividend_tax_brings_its_buys(home, text, symbol):
    info = explain(home, text)
    assert "trades" in keys(info)
    assert "trades" in info["selection"]["targets"]
    assert symbol in info["selection"]["symbols"]


@pytest.mark.parametrize(
    "text", ["股息红利税怎么算的", "红利税按持股时间怎么分档", "所有股票都要交印花税吗", "老妈的养老钱放银行存款够不够"]
)
def test_a_rule_alone_or_somebody_elses_money_stays_out(home, text):
    found = keys(explain(home, text))
    assert "portfolio_profiles" not in found
    assert "trades" not in found
