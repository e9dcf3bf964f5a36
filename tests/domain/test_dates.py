"""Days in the user's words, relative to a pinned today (2026-03-02, a Monday)."""

from __future__ import annotations

from datetime import date

import pytest

from pixiu_cli.kernel.clock import DateWordsError, find_date_words, parse_date_words

TODAY = date(2026, 3, 2)


@pytest.mark.parametrize(
    "words, day",
    [
        ("今天", date(2026, 3, 2)),
        ("昨天", date(2026, 3, 1)),
        ("前天", date(2026, 2, 28)),
        ("大前天", date(2026, 2, 27)),
        ("3月1日", date(2026, 3, 1)),
        ("3月3号", date(2025, 3, 3)),  # this year's 3月3日 is tomorrow: the last one that has been
        ("12月31日", date(2025, 12, 31)),
        ("2025年3月3日", date(2025, 3, 3)),
        ("2025-03-03", date(2025, 3, 3)),
        ("2025/3/3", date(2025, 3, 3)),
    ],
)
def test_words_name_a_day(words, day):
    assert parse_date_words(words, TODAY) == day


@pytest.mark.parametrize(
    "words, message",
    [
        ("2026-03-03", "在今天（2026-03-02）之后：不能记录未来的交易"),
        ("2025年2月30日", "没有这一天：2025年2月30日"),
        ("下周一", "无法识别的日期：下周一"),
    ],
)
def test_words_that_name_no_past_day_are_refused(words, message):
    with pytest.raises(DateWordsError, match=message):
        parse_date_words(words, TODAY)


def test_the_day_words_are_found_in_a_sentence():
    assert find_date_words("我2025年3月3日以70元买了500股美的") == "2025年3月3日"
    assert find_date_words("3月3号卖了200股茅台") == "3月3号"
    assert find_date_words("大前天买的海康") == "大前天"
    assert find_date_words("以70元买了500股美的") is None
