"""Colloquial time words move every window (issue 53): holidays resolved on the shipped
trading calendar (节前, 国庆后, 过完年, 中秋期间), N units ago (两个月前, 一个多月前), parts of a
month or a year (月初, 上个月底, 去年底), a period running until today (十月份以来, 年初到现在)
and rough numbers (两三周). The closures are the calendar's: National Day 2026 is
10-01..10-07 (reopening Thursday 10-08), Mid-Autumn 2026 09-25..09-27, Spring Festival
2026 02-14..02-23, May Day 2026 05-01..05-05, Dragon Boat 2026 06-19..06-21."""

from __future__ import annotations

from datetime import date

import pytest

from pixiu_cli.conversation.selection.select import select
from pixiu_cli.conversation.selection.windows import moves, period
from pixiu_cli.market.names.table import Holder, NameTable, names_from


def _span(text: str, today: str) -> tuple[str, str] | None:
    found = period(text, date.fromisoformat(today))
    return None if found is None else (found.start.isoformat(), found.end.isoformat())


@pytest.mark.parametrize(
    ("text", "today", "start", "end"),
    [
        # a bare 节后 in November is the National Day reopening until today
        ("节后买的", "2026-11-18", "2026-10-08", "2026-11-18"),
        # 节前: the ten sessions before the closure (09-25 was the Mid-Autumn closure)
        ("节前卖的", "2026-11-18", "2026-09-16", "2026-09-30"),
        ("国庆前后的新闻", "2026-11-18", "2026-09-16", "2026-10-21"),  # ten sessions either side
        ("十一后的操作", "2026-11-18", "2026-10-08", "2026-11-18"),
        ("国庆长假回来", "2026-10-20", "2026-10-08", "2026-10-20"),
        ("春节前", "2026-03-10", "2026-02-02", "2026-02-15"),
        ("过年前建的仓", "2026-03-10", "2026-02-02", "2026-02-15"),
        ("年前买的", "2026-12-02", "2026-02-02", "2026-02-15"),  # the most recent Spring Festival
        ("过完年买的", "2026-03-10", "2026-02-24", "2026-03-10"),
        ("年后的交易", "2026-03-10", "2026-02-24", "2026-03-10"),
        ("五一后卖的", "2026-06-01", "2026-05-06", "2026-06-01"),
        ("节后", "2026-06-25", "2026-06-22", "2026-06-25"),  # a bare 节 in June: the Dragon Boat closure
        ("端午前", "2026-07-01", "2026-06-05", "2026-06-18"),
        # 中秋 2026 is its own closure by the calendar's names, not the National Day one after it;
        # during a closure runs to the session after the reopening (09-28), where what happened is reported
        ("中秋期间的公告", "2026-11-01", "2026-09-25", "2026-09-29"),
        # in 2025 the calendar names one closure 国庆节、中秋节: both words find it
        ("中秋期间", "2025-11-01", "2025-10-01", "2025-10-10"),
        # the first session after a closure: the reopening alone
        ("节后第一天那个提醒", "2026-11-18", "2026-10-08", "2026-10-08"),
        ("节后首日买的", "2026-11-18", "2026-10-08", "2026-10-08"),
        ("国庆长假后开盘第一天", "2026-11-18", "2026-10-08", "2026-10-08"),
        ("过完年第一天", "2026-03-10", "2026-02-24", "2026-02-24"),
        # a year the calendar names no holiday of: by the dates the holiday falls on
        ("国庆后", "2024-11-01", "2024-10-08", "2024-11-01"),
        ("元旦后", "2026-01-20", "2026-01-05", "2026-01-20"),
    ],
)
def test_a_holiday_is_a_closure_of_the_trading_calendar(text, today, start, end):
    assert _span(text, today) == (start, end)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("两个月前卖的", "2026-09-18", "2026-10-18"),  # a month wide around 60 days back
        ("俩月前", "2026-09-18", "2026-10-18"),
        ("一个多月前买的", "2026-10-03", "2026-11-02"),  # one to two months back
        ("两个多月前的想法", "2026-09-03", "2026-10-03"),
        ("个把月前", "2026-10-18", "2026-11-17"),
        ("半个月前", "2026-11-09", "2026-11-25"),
        ("三天前", "2026-11-28", "2026-11-30"),
        ("月初到现在", "2026-12-01", "2026-12-02"),
        ("上个月底到现在", "2026-11-21", "2026-12-02"),
        ("上个月中旬", "2026-11-11", "2026-11-20"),
        ("年初以来", "2026-01-01", "2026-12-02"),
        ("十月份以来的交易", "2026-10-01", "2026-12-02"),
        ("8月中到现在", "2026-08-11", "2026-12-02"),
        ("去年底的计划", "2025-12-01", "2025-12-31"),
        ("最近两三周", "2026-11-11", "2026-12-02"),  # the larger of a rough number
        ("近一个多月", "2026-10-18", "2026-12-02"),  # 1.5 × 30 = 45 days back
        ("the last 3 weeks", "2026-11-11", "2026-12-02"),
        ("佣金一年下来多少", "2025-12-02", "2026-12-02"),  # a tally over a span up to today
        # days named by their date: the most recent one, a week either side, before, after, the day
        ("双十一前后买卖的费用", "2026-11-04", "2026-11-18"),
        ("双11之前买的", "2026-11-04", "2026-11-11"),
        ("双十一后消费股", "2026-11-11", "2026-12-02"),
        ("618那天", "2026-06-18", "2026-06-18"),
        ("圣诞节前后", "2025-12-18", "2026-01-01"),  # not yet this year: last year's
    ],
)
def test_colloquial_spans_from_a_fixed_today(text, start, end):
    assert _span(text, "2026-12-02") == (start, end)


@pytest.mark.parametrize(
    "text", ["节日快乐", "最近怎么样", "季节后", "三月前", "十一月前要不要减仓", "过年要不要持股过节", "三年后"]
)
def test_words_that_name_no_period_move_nothing(text):
    assert period(text, date(2026, 12, 2)) is None


def test_a_holiday_period_says_which_closure_and_which_side():
    found = period("节前", date(2026, 11, 18))
    assert found is not None
    assert found.reading == "最近一次长假休市 2026-10-01 至 2026-10-07，取休市前 10 个交易日"
    [move] = moves(found, ("alerts",), False)
    assert move.section == "alerts" and move.explanation()["reading"] == found.reading
    assert "国庆节休市" in period("国庆前后", date(2026, 11, 18)).reading
    assert period("双十一前后", date(2026, 11, 18)).reading == "双十一即 2026-11-11，取前后各 7 天"


TABLE = NameTable(
    names_from([Holder("600309", "万华化学", ("万华",)), Holder("600887", "伊利股份", ("伊利",))], [], [])
)
TODAY = date(2026, 12, 2)


@pytest.mark.parametrize(
    ("text", "sections"),
    [
        ("节后触发了哪些预警", ["alerts"]),
        ("国庆后记的那些想法", ["notes"]),
        ("年前我写的观点还有效吗", ["notes"]),
        ("节前的交易", ["trades", "decisions"]),
        ("国庆前后的简报", ["reports"]),
        ("伊利国庆前后的新闻", ["news"]),
    ],
)
def test_every_windowed_class_is_moved(text, sections):
    assert [w.section for w in select(text, TABLE, today=TODAY).windows] == sections


@pytest.mark.parametrize(
    "text",
    [
        "今年交了多少手续费",
        "上个月印花税交了多少",
        "万华分红到账了没",
        "红利税扣了多少",
        "连手续费算上亏了多少",
        "做T的佣金今年一共多少",
    ],
)
def test_a_cost_question_asks_for_the_trades(text):
    chosen = select(text, TABLE, today=TODAY)
    assert "trades" in chosen.targets and chosen.intent.value == "trade_review", chosen.reason


@pytest.mark.parametrize(
    "text", ["印花税怎么算", "印花税减半对大盘有啥影响", "佣金万一免五是什么意思", "万华分红方案出了吗"]
)
def test_a_rule_or_rate_of_costs_is_no_trade_question(text):
    assert "trades" not in select(text, TABLE, today=TODAY).targets


OWN = NameTable(
    names_from(
        [
            Holder("600916", "中国黄金", ()),
            Holder("600309", "万华化学", ("万华",)),
            Holder("600887", "伊利股份", ("伊利",)),
        ],
        [],
        [],
    )
)


def test_a_time_word_never_reaches_into_a_name():
    """十月份中国黄金: October and 中国黄金, not mid-October (月中) and 国黄金."""
    [move] = select("十月份中国黄金有什么新闻", OWN, today=TODAY).windows
    assert (move.section, move.start.isoformat(), move.end.isoformat(), move.words) == (
        "news",
        "2026-10-01",
        "2026-10-31",
        "十月份",
    )


@pytest.mark.parametrize(
    ("text", "start"),
    [("节后第一天那个提醒是啥", "2026-10-08"), ("上上周有什么提醒", "2026-11-16"), ("最近有啥提醒", None)],
)
def test_a_reminder_asked_about_is_an_alert(text, start):
    chosen = select(text, OWN, today=TODAY)
    assert "alerts" in chosen.targets
    assert [w.start.isoformat() for w in chosen.windows] == ([start] if start else [])


def test_a_reminder_requested_is_no_alert_question():
    assert "alerts" not in select("提醒我明天看下伊利", OWN, today=TODAY).targets


@pytest.mark.parametrize(
    "text",
    [
        "佣金一年下来多少",
        "过户费咋收的 我今年交了多少",
        "万华减仓交了多少税",
        "这周伊利试仓的佣金",
        "伊利清仓的时候手续费多少",
        "伊利拿满一年了吗 红利税咋算",
        "双十一前后买卖的费用",
        "节前潜伏的那只券商是啥",
    ],
)
def test_costs_and_holding_time_of_the_users_trades_ask_for_the_trades(text):
    assert "trades" in select(text, OWN, today=TODAY).targets


@pytest.mark.parametrize("text", ["印花税现在是多少", "伊利还能拿多久", "持有多久可以免红利税", "过户费咋收的"])
def test_a_rate_or_a_holding_plan_is_no_trade_question(text):
    assert "trades" not in select(text, OWN, today=TODAY).targets


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("哪些票亏得多", "portfolio_review"),
        ("哪几只跌得最惨", "portfolio_review"),
        ("今年收益率多少", "portfolio_review"),
        ("葛兰最近调仓了吗", "general"),  # a fund manager's moves are her fund's
        ("张坤最近加仓了啥", "general"),
    ],
)
def test_colloquial_account_questions_and_others_money(text, intent):
    assert select(text, OWN, today=TODAY).intent.value == intent
