"""Figures as typed: the value and unit of each, by hand."""

from __future__ import annotations

from decimal import Decimal

import pytest

from pixiu_cli.conversation.grounding import arabic, chinese_value, figures


@pytest.mark.parametrize(
    "run, value",
    [
        ("三百", 300),
        ("两千五", 2500),  # 2 × 1000 + 5 × 100: a last digit counts in the unit below
        ("一万二", 12000),  # 1 × 10,000 + 2 × 1,000
        ("十五", 15),
        ("一百零五", 105),  # 零: the 5 is ones
        ("三十二点五", Decimal("32.5")),
        ("一五零零", 1500),  # digit by digit
        ("一亿五千万", 150_000_000),  # 1 × 10^8 + 5,000 × 10^4
        ("十万", 100_000),
    ],
)
def test_chinese_numerals(run, value):
    assert chinese_value(run) == Decimal(value)


def test_a_run_without_a_digit_is_no_number():
    assert chinese_value("万") is None and chinese_value("千万") is None
    assert arabic("万科和千万别卖") == "万科和千万别卖"


@pytest.mark.parametrize(
    "text, found",
    [
        ("今天以 30 元买入海康威视 200 股", [("30", "元"), ("200", "股")]),
        ("卖出２００股，价格１元", [("200", "股"), ("1", "元")]),  # full-width digits
        ("我今天 32.5 元买了 10 手海康", [("32.5", "元"), ("10", "手")]),
        ("三十二点五元买了两千五百股", [("32.5", "元"), ("2500", "股")]),
        ("1.5万股，30块5", [("15000", "股"), ("30.5", "元")]),  # 1.5 × 10,000; 30 元 5 角
        ("3月3日以1,500.5元", [("3", "月"), ("3", "日"), ("1500.5", "元")]),
        ("仓位不超过25%", [("25", "%")]),
    ],
)
def test_figures_and_their_units(text, found):
    assert [(f"{f.value.normalize():f}", f.unit) for f in figures(text)] == found
