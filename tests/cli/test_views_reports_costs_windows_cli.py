"""Time words on views, plans, reports and trades, and the costs of a named stock, as a user
meets them in `pixiu context` (issue 53): on a real home (老孙's account, now Friday
2026-12-04 evening), 两个月前我对白酒咋看的 moves the notes to a sector view that names no
stock, 年初定的目标 brings January's goal, a report asked by its kind (组合体检) moves the
reports, 补过哪些仓 the trades, a named stock's fee or dividend tax brings its fills of any
age (the buy more than a year back decides the tax), and wallet cash is no account question."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import pixiu_for_result

ACCOUNT = Path(__file__).resolve().parents[2] / "data" / "selection" / "tune_5" / "datasets" / "windows_sun.json"
NOW = "2026-12-04T20:00:00+08:00"  # a Friday; National Day 2026 closed 10-01..10-07


@pytest.fixture
def home(offline_env):
    env = {**offline_env, "PIXIU_NOW": NOW}
    done = pixiu_for_result(env, "import", str(ACCOUNT))
    assert done.returncode == 0, done.stderr
    return env


def explain(env, text: str) -> dict:
    done = pixiu_for_result(env, "context", "--explain", text)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def shown(env, text: str) -> str:
    """The messages the model would be sent, as one text."""
    done = pixiu_for_result(env, "context", "--json", text)
    assert done.returncode == 0, done.stderr
    return done.stdout


def section(info: dict, key: str) -> dict:
    return next(s for s in info["sections"] if s["key"] == key)


def moved(info: dict) -> list[tuple[str, str, str, str]]:
    return [(w["section"], w["start"], w["end"], w["words"]) for w in info["selection"]["windows"]]


def test_a_sector_view_asked_with_a_time_word_moves_the_notes(home):
    info = explain(home, "两个月前我对白酒咋看的")
    assert "plans" in info["selection"]["targets"]
    assert moved(info) == [("notes", "2026-09-20", "2026-10-20", "两个月前")]
    assert section(info, "notes")["memory_ids"] == ["note:3"]  # 10-02's view on 白酒, no stock
    assert "白酒板块估值到底了" in shown(home, "两个月前我对白酒咋看的")


def test_a_goal_and_a_strategy_set_at_the_start_of_the_year_come_in(home):
    info = explain(home, "年初定的目标完成没")
    assert moved(info) == [("notes", "2026-01-01", "2026-02-28", "年初")]
    assert set(section(info, "notes")["memory_ids"]) == {"note:4", "note:5"}
    assert "今年的策略" in shown(home, "年初写的那份策略拿出来看看")
    price = explain(home, "年初老窖的目标价是多少")  # a price target is no plan of the user's
    assert "plans" not in price["selection"]["targets"]


def test_a_report_asked_by_its_kind_moves_the_reports(home):
    info = explain(home, "节前那份组合体检说了啥")
    assert "brief" in info["selection"]["targets"]
    assert moved(info) == [("reports", "2026-09-16", "2026-09-30", "节前")]
    assert section(info, "reports")["memory_ids"] == ["report:4"]


def test_a_top_up_asked_with_a_period_moves_the_trades(home):
    info = explain(home, "国庆前补过哪些仓")
    assert info["intent"] == "trade_review"
    assert ("trades", "2026-09-16", "2026-09-30", "国庆前") in moved(info)
    assert section(info, "trades")["memory_ids"] == ["decision:2"]  # 09-24's 补仓 of 老窖


def test_a_named_stocks_fee_without_a_verb_brings_its_fills(home):
    info = explain(home, "买老窖的过户费多少")
    assert "点名个股的交易费用" in [c["name"] for c in info["selection"]["cues"]]
    text = shown(home, "买老窖的过户费多少")
    assert "买入 000568 泸州老窖 300 股" in text and "买入 000568 泸州老窖 200 股" in text


def test_a_named_stocks_dividend_tax_reaches_a_buy_more_than_a_year_back(home):
    """The tax on 长江电力's dividend depends on the June 2025 buy: no one-year window."""
    info = explain(home, "长江电力分红到账了 红利税扣了没")
    assert moved(info) == []
    text = shown(home, "长江电力分红到账了 红利税扣了没")
    assert "买入 600900 长江电力 2,000 股" in text and "股息入账 600900" in text


def test_dividends_received_this_year_are_the_ledgers_dividend_rows(home):
    info = explain(home, "今年收了多少分红")
    assert ("trades", "2026-01-01", "2026-12-04", "今年") in moved(info)
    text = shown(home, "今年收了多少分红")
    assert "股息入账 600900" in text and "股息入账 000568" in text


def test_wallet_cash_is_no_account_question(home):
    info = explain(home, "现在出门还用带现金吗 都微信付了")
    assert info["intent"] == "general" and info["selection"]["targets"] == []
    assert "生活里的钱" in info["selection"]["reason"]
    assert explain(home, "我现金还剩多少")["selection"]["targets"] == ["account"]
