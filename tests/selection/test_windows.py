"""Time words move windows (issue 38): a named period — weeks, weekdays, months, half-years,
quarters, years, the last N days — is worked out from today, and governs the window of the
class the question asks about. Today is 2026-11-25, a Wednesday: this week is Monday 11-23 to
Sunday 11-29, last week 11-16 to 11-22, the week before 11-09 to 11-15."""

from __future__ import annotations

from datetime import date

import pytest

from pixiu_cli.conversation.selection.select import select
from pixiu_cli.conversation.selection.windows import moves, period
from pixiu_cli.market.names.table import Holder, NameTable, names_from

TODAY = date(2026, 11, 25)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("今天的简报", "2026-11-25", "2026-11-25"),
        ("昨天卖了什么", "2026-11-24", "2026-11-24"),
        ("这周做t", "2026-11-23", "2026-11-25"),  # Monday to today (Sunday is still to come)
        ("上周卖了哪些", "2026-11-16", "2026-11-22"),
        ("上上周的交易", "2026-11-09", "2026-11-15"),
        ("上周三卖的那笔", "2026-11-18", "2026-11-18"),  # Monday 11-16 + 2 days
        ("上礼拜一的日报", "2026-11-16", "2026-11-16"),
        ("上上周五的周报", "2026-11-13", "2026-11-13"),  # Monday 11-09 + 4 days
        ("上个月的操作", "2026-10-01", "2026-10-31"),
        ("这个月买过啥", "2026-11-01", "2026-11-25"),
        ("十月底发的报告", "2026-10-21", "2026-10-31"),  # 底: the last days, from the 21st
        ("8月份卖了啥", "2026-08-01", "2026-08-31"),
        ("12月的买入", "2025-12-01", "2025-12-31"),  # December has not come this year: last year's
        ("去年11月的买入", "2025-11-01", "2025-11-30"),
        ("4月5月买了哪些", "2026-04-01", "2026-05-31"),  # two months: the first's start to the second's end
        ("11月6号那期周报", "2026-11-06", "2026-11-06"),
        ("上半年的总结", "2026-01-01", "2026-06-30"),
        ("今年第一季度买入的", "2026-01-01", "2026-03-31"),
        ("今年以来的买卖记录", "2026-01-01", "2026-11-25"),  # ends today, never later
        ("去年卖掉的", "2025-01-01", "2025-12-31"),
        ("近两周的交易", "2026-11-11", "2026-11-25"),  # 2 × 7 = 14 days back
        ("双汇这半个月的新闻", "2026-11-10", "2026-11-25"),  # half of 30 days back
        ("半年内的买卖", "2026-05-27", "2026-11-25"),  # 0.5 × 365 = 182.5 → 182 days back
        ("what did i sell last month", "2026-10-01", "2026-10-31"),
        ("my trades in october", "2026-10-01", "2026-10-31"),
        ("上星期和上上周卖了什么", "2026-11-09", "2026-11-22"),  # both weeks, joined
    ],
)
def test_a_named_period_is_worked_out_from_today(text, start, end):
    found = period(text, TODAY)
    assert found is not None, text
    assert (found.start.isoformat(), found.end.isoformat()) == (start, end)


@pytest.mark.parametrize("text", ["最近怎么样", "富联还能拿吗", "三成仓位", "一个月线"])
def test_no_period_named_moves_nothing(text):
    assert period(text, TODAY) is None


def test_a_period_governs_the_classes_asked_about():
    last_month = period("上个月", TODAY)
    assert [m.section for m in moves(last_month, ("trades",), False)] == ["trades", "decisions"]
    assert [m.section for m in moves(last_month, ("brief", "news"), False)] == ["reports", "news"]
    assert [m.section for m in moves(last_month, (), True)] == ["trades", "decisions"]  # a trade review
    assert moves(last_month, ("account",), False) == ()  # the cash has no window
    assert moves(None, ("trades",), True) == ()


def test_the_selection_carries_its_window_moves_and_says_them():
    table = NameTable(names_from([Holder("601138", "工业富联", ("富联",))], [], []))
    chosen = select("上个月富联有什么公告", table, today=TODAY)
    assert chosen.symbols == ["601138"] and chosen.targets == ("news",)
    [move] = chosen.windows
    assert (move.section, move.start, move.end, move.words) == ("news", date(2026, 10, 1), date(2026, 10, 31), "上个月")
    assert chosen.explanation()["windows"][0]["words"] == "上个月"
    assert select("上个月富联有什么公告", table).windows == ()  # without today, no window is read
