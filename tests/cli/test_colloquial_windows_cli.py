"""A colloquial time word as a user meets it in `pixiu context` (issue 53): on a real home,
节后 moves the alerts' window and 国庆后 the notes' (plans and views older than their 30 days
come in), a cost question brings the fills of stocks since sold out, and `--explain` names
the word, the closure it was read as, the period and the section. Views, goals and reports
asked with a time word (两个月前我对白酒咋看的, 年初定的目标, 节前那份组合体检) move their
windows too, a named stock's fee or dividend tax brings its fills of any age, and wallet cash
is no account question."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import pixiu_for_result

ACCOUNT = Path(__file__).resolve().parents[2] / "data" / "selection" / "tune_5" / "datasets" / "windows_he.json"
NOW = "2026-12-02T20:30:00+08:00"  # a Wednesday; National Day 2026 closed 10-01..10-07


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


def section(info: dict, key: str) -> dict:
    return next(s for s in info["sections"] if s["key"] == key)


def test_a_holiday_moves_the_alerts_window_and_explain_says_so(home):
    usual = explain(home, "最近有什么预警")
    assert section(usual, "alerts")["memory_ids"] == ["alert:1"]  # the last day only
    assert usual["selection"]["windows"] == []
    info = explain(home, "节后触发了哪些预警")
    # today's, 11-19's and 10-13's alerts; not 09-28's, before the holiday
    assert section(info, "alerts")["memory_ids"] == ["alert:1", "alert:2", "alert:3"]
    [move] = info["selection"]["windows"]
    assert (move["section"], move["start"], move["end"], move["words"]) == (
        "alerts",
        "2026-10-08",
        "2026-12-02",
        "节后",
    )
    assert move["reading"] == "最近一次长假休市 2026-10-01 至 2026-10-07，取复市至今"
    assert move["why"] == (
        "时间词“节后”（最近一次长假休市 2026-10-01 至 2026-10-07，取复市至今：2026-10-08 至 2026-12-02）："
        "预警的窗口放宽到 2026-10-08 至 2026-12-02（平时为近 1 天）"
    )


def test_a_holiday_moves_the_notes_window_and_context_shows_it(home):
    assert section(explain(home, "最近的想法"), "notes")["memory_ids"] == ["note:1"]  # 30 days: 11-25's plan
    info = explain(home, "国庆后记的那些想法翻出来看看")
    assert section(info, "notes")["memory_ids"] == ["note:1", "note:2"]  # with 10-08's view
    assert [(w["section"], w["start"]) for w in info["selection"]["windows"]] == [("notes", "2026-10-08")]
    table = pixiu_for_result(home, "context", "国庆后记的那些想法翻出来看看").stdout
    assert "问到的记忆：计划 / 观点" in table
    assert (
        "窗口：时间词“国庆后”（国庆节休市 2026-10-01 至 2026-10-07，取复市至今：2026-10-08 至 2026-12-02）："
        "计划 / 观点的窗口放宽到 2026-10-08 至 2026-12-02（平时为近 30 天）"
    ) in table


def test_a_cost_question_brings_the_fills_of_stocks_sold_since(home):
    info = explain(home, "今年交了多少手续费")
    assert info["intent"] == "trade_review"
    trades = section(info, "trades")
    # the year's fills, 比亚迪, 中免 and 隆基 sold out among them, and the dividend (12 shown)
    assert trades["items"] >= 12 and {"decision:1", "decision:2", "decision:3"} <= set(trades["memory_ids"])
    cues = [c["name"] for c in info["selection"]["cues"]]
    assert "一段时间的费用" in cues or "费用、税与分红到账" in cues
    assert explain(home, "印花税怎么算")["intent"] == "general"


def test_a_cost_question_without_a_time_word_reckons_the_last_year(home):
    """Fees and dividends are tallied by the year: with no time word the trades' window is the
    last year, so a sale of two months ago is there; a plain trade question keeps its week."""
    info = explain(home, "那笔卖出的印花税扣了我多少钱")
    trades = section(info, "trades")
    assert {"decision:1", "decision:2", "decision:3"} <= set(trades["memory_ids"])  # 09-29, 10-16, 11-30
    move = next(w for w in info["selection"]["windows"] if w["section"] == "trades")
    assert (move["start"], move["end"]) == ("2025-12-02", "2026-12-02")
    assert move["why"].startswith("没有时间词（问的是费用、税或分红的合计，按近一年算")
    plain = explain(home, "最近卖了啥")
    assert not plain["selection"]["windows"]
    assert "decision:1" not in section(plain, "trades")["memory_ids"]


def test_a_moved_window_lists_the_whole_period_not_the_default_few(offline_env):
    """今年的印花税 asks about the year: every told trade of the year is listed (nine), not the
    five of the default week's list; the note says the period's limit."""
    account = ACCOUNT.parent / "outsider5_a.json"
    env = {**offline_env, "PIXIU_NOW": "2026-12-04T10:15:00+08:00"}
    assert pixiu_for_result(env, "import", str(account)).returncode == 0
    decisions = section(explain(env, "今年交了多少印花税"), "decisions")
    assert len(decisions["memory_ids"]) == 9
    assert len(section(explain(env, "最近买卖了啥"), "decisions")["memory_ids"]) <= 5


@pytest.fixture
def qian(offline_env):
    """A home with the windows_more account (now Friday 2026-12-04): told trades only, 首旅
    sold out in April, 比音勒芬 in August."""
    env = {**offline_env, "PIXIU_NOW": "2026-12-04T10:15:00+08:00"}
    done = pixiu_for_result(env, "import", str(ACCOUNT.parent / "windows_qian.json"))
    assert done.returncode == 0, done.stderr
    return env


def test_a_named_stocks_trade_question_brings_its_told_trades_of_any_age(qian):
    """首旅 was sold in April: asked about that sale (no time word), the decisions section holds
    the April sale and the buy before it, not only the last week's, and the stock's section
    does not repeat them."""
    info = explain(qian, "首旅那笔卖出咋回事")
    assert section(info, "decisions")["memory_ids"] == ["decision:3", "decision:2"]
    assert not {"decision:3", "decision:2"} & set(section(info, "symbol:600258")["memory_ids"])
    fee = explain(qian, "比音勒芬清仓的时候手续费多少")  # a trade's fee asked by its time
    assert "费用、税与分红到账" in [c["name"] for c in fee["selection"]["cues"]]
    assert "decision:5" in section(fee, "decisions")["memory_ids"]


def test_a_holidays_first_session_and_its_days_reach_the_alerts_and_the_stocks_news(qian):
    info = explain(qian, "节后第一天那条提醒说的啥")
    assert section(info, "alerts")["memory_ids"] == ["alert:1"]  # 10-08's, not 11-18's
    [move] = info["selection"]["windows"]
    assert (move["start"], move["end"]) == ("2026-10-08", "2026-10-08")
    assert move["reading"].endswith("取复市首日")
    # news of the closure published by the session after the reopening is the closure's
    news = explain(qian, "国庆那几天妙可蓝多出啥消息了")
    assert section(news, "symbol:600882")["memory_ids"] == ["news:3"]
    [move] = news["selection"]["windows"]
    assert (move["section"], move["start"], move["end"]) == ("news", "2026-10-01", "2026-10-09")
    assert "到复市后第二个交易日" in move["why"]


def test_a_day_named_by_its_date_moves_the_trades_and_explain_says_how_it_was_read(qian):
    info = explain(qian, "双十一后加仓的那只手续费多少")
    assert section(info, "decisions")["memory_ids"] == ["decision:10", "decision:9", "decision:8"]  # 11-13 on
    move = next(w for w in info["selection"]["windows"] if w["section"] == "decisions")
    assert (move["start"], move["words"], move["reading"]) == (
        "2026-11-11",
        "双十一后",
        "双十一即 2026-11-11，取当天至今",
    )


@pytest.fixture
def sun(offline_env):
    """A home with 老孙's account (windows_round3, now Friday 2026-12-04 evening): views on
    sectors naming no stock, a strategy and a goal written in January, reports named by their
    kind (组合体检, 仓位检查), 长江电力 bought in June 2025, 中际旭创 cleared in November."""
    env = {**offline_env, "PIXIU_NOW": "2026-12-04T20:00:00+08:00"}
    done = pixiu_for_result(env, "import", str(ACCOUNT.parent / "windows_sun.json"))
    assert done.returncode == 0, done.stderr
    return env


def shown(env, text: str) -> str:
    """The messages the model would be sent, as one text."""
    done = pixiu_for_result(env, "context", "--json", text)
    assert done.returncode == 0, done.stderr
    return done.stdout


def moved(info: dict) -> list[tuple[str, str, str, str]]:
    return [(w["section"], w["start"], w["end"], w["words"]) for w in info["selection"]["windows"]]


def test_a_sector_view_asked_with_a_time_word_moves_the_notes(sun):
    info = explain(sun, "两个月前我对白酒咋看的")
    assert "plans" in info["selection"]["targets"]
    assert moved(info) == [("notes", "2026-09-20", "2026-10-20", "两个月前")]
    assert section(info, "notes")["memory_ids"] == ["note:3"]  # 10-02's view on 白酒, no stock
    assert "白酒板块估值到底了" in shown(sun, "两个月前我对白酒咋看的")
    assistant = explain(sun, "上个月光模块那波行情你怎么看的")  # the assistant's view, not the user's
    assert "plans" not in assistant["selection"]["targets"] and moved(assistant) == []


def test_a_goal_and_a_strategy_set_at_the_start_of_the_year_come_in(sun):
    info = explain(sun, "年初定的目标完成没")
    assert moved(info) == [("notes", "2026-01-01", "2026-02-28", "年初")]
    assert set(section(info, "notes")["memory_ids"]) == {"note:4", "note:5"}
    assert "今年的策略" in shown(sun, "年初写的那份策略拿出来看看")
    price = explain(sun, "年初老窖的目标价是多少")  # a price target is no plan of the user's
    assert "plans" not in price["selection"]["targets"]


def test_a_report_asked_by_its_kind_moves_the_reports(sun):
    info = explain(sun, "节前那份组合体检说了啥")
    assert "brief" in info["selection"]["targets"]
    assert moved(info) == [("reports", "2026-09-16", "2026-09-30", "节前")]
    assert section(info, "reports")["memory_ids"] == ["report:4"]


def test_a_top_up_asked_with_a_period_moves_the_trades(sun):
    info = explain(sun, "国庆前补过哪些仓")
    assert info["intent"] == "trade_review"
    assert ("trades", "2026-09-16", "2026-09-30", "国庆前") in moved(info)
    assert section(info, "trades")["memory_ids"] == ["decision:2"]  # 09-24's 补仓 of 老窖


def test_a_named_stocks_fee_without_a_verb_brings_its_fills(sun):
    info = explain(sun, "买老窖的过户费多少")
    assert "点名个股的交易费用" in [c["name"] for c in info["selection"]["cues"]]
    text = shown(sun, "买老窖的过户费多少")
    assert "买入 000568 泸州老窖 300 股" in text and "买入 000568 泸州老窖 200 股" in text


def test_a_named_stocks_dividend_tax_reaches_a_buy_more_than_a_year_back(sun):
    """The tax on 长江电力's dividend depends on the June 2025 buy: no one-year window."""
    info = explain(sun, "长江电力分红到账了 红利税扣了没")
    assert moved(info) == []
    text = shown(sun, "长江电力分红到账了 红利税扣了没")
    assert "买入 600900 长江电力 2,000 股" in text and "股息入账 600900" in text


def test_dividends_received_this_year_are_the_ledgers_dividend_rows(sun):
    info = explain(sun, "今年收了多少分红")
    assert ("trades", "2026-01-01", "2026-12-04", "今年") in moved(info)
    text = shown(sun, "今年收了多少分红")
    assert "股息入账 600900" in text and "股息入账 000568" in text


def test_wallet_cash_is_no_account_question(sun):
    info = explain(sun, "现在出门还用带现金吗 都微信付了")
    assert info["intent"] == "general" and info["selection"]["targets"] == []
    assert "生活里的钱" in info["selection"]["reason"]
    assert explain(sun, "我现金还剩多少")["selection"]["targets"] == ["account"]
