"""The rules fundamentals are read with, by hand: report periods and their legal deadlines,
when a sync asks for reports again (a new period, not every day), the percentile over a
stock's own history, and the limit prices breadth is counted with."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from pixiu_cli.market.fundamentals.model import (
    next_period,
    percentile,
    period_deadline,
    period_name,
    recent_periods,
    refresh_due,
)
from pixiu_cli.market.review.model import SpotRow, breadth_of, limit_prices


@pytest.mark.parametrize(
    "period, name, deadline, following",
    [
        ("2026-03-31", "2026 一季报", date(2026, 4, 30), "2026-06-30"),
        ("2026-06-30", "2026 中报", date(2026, 8, 31), "2026-09-30"),
        ("2026-09-30", "2026 三季报", date(2026, 10, 31), "2026-12-31"),
        ("2026-12-31", "2026 年报", date(2027, 4, 30), "2027-03-31"),
    ],
)
def test_periods_their_names_deadlines_and_successors(period, name, deadline, following):
    assert (period_name(period), period_deadline(period), next_period(period)) == (name, deadline, following)


def test_recent_periods_are_the_quarter_ends_before_today():
    assert recent_periods(date(2026, 11, 24), 5) == [
        "2026-09-30",
        "2026-06-30",
        "2026-03-31",
        "2025-12-31",
        "2025-09-30",
    ]
    assert recent_periods(date(2026, 12, 31), 1) == ["2026-09-30"]  # the day itself has not ended


@pytest.mark.parametrize(
    "latest, fetched, today, due",
    [
        (None, None, date(2026, 11, 24), True),  # never fetched
        ("2026-09-30", date(2026, 11, 1), date(2026, 12, 30), False),  # 2026 年报's year has not ended
        ("2026-09-30", date(2027, 1, 2), date(2027, 1, 8), False),  # in the window, fetched 6 days ago
        ("2026-09-30", date(2027, 1, 2), date(2027, 1, 9), True),  # a week later
        ("2026-09-30", date(2027, 4, 29), date(2027, 5, 1), True),  # past the deadline: once more
        ("2026-09-30", date(2027, 5, 1), date(2027, 5, 3), False),  # then weekly again
        ("2026-09-30", date(2027, 5, 1), date(2027, 5, 8), True),
    ],
)
def test_reports_are_due_for_a_new_period_not_every_day(latest, fetched, today, due):
    assert refresh_due(latest, fetched, today) is due


def days(values):
    return [(f"2026-{1 + i // 28:02d}-{1 + i % 28:02d}", v) for i, v in enumerate(values)]


def test_the_percentile_is_the_share_of_days_at_or_below_today():
    # 60 days: 1 … 59, then today 30 → the days at or below 30: 1 … 30 (30) and today: 31 of 60
    ranked = percentile(days([Decimal(v) for v in range(1, 60)] + [Decimal(30)]))
    assert (ranked.rank, ranked.days, ranked.value) == (Decimal(31) / Decimal(60), 60, Decimal(30))
    assert ranked.window == "已存 0.2 年"  # 2026-01-01 … 2026-03-04: 62 days / 365.25


def test_no_percentile_for_a_short_history_a_loss_or_a_missing_today():
    assert percentile(days([Decimal(20)] * 59)) is None  # 59 days: too few
    assert percentile(days([Decimal(20)] * 60 + [Decimal(-5)])) is None  # a loss: PE is negative
    assert percentile(days([Decimal(20)] * 60 + [None])) is None  # today has no value


def test_limit_prices_use_the_board_the_day_and_the_fen():
    # 3.33 × 1.10 = 3.663 → 3.66 and 3.33 × 0.90 = 2.997 → 3.00
    assert limit_prices(SpotRow("600000", "浦发银行", None, Decimal("3.33"), None), "2026-11-30") == (
        Decimal("3.00"),
        Decimal("3.66"),
    )
    # ST on the main board: 5% before 2026-07-06, 10% after
    st = SpotRow("600001", "ST某某", None, Decimal("10"), None)
    assert limit_prices(st, "2026-07-03") == (Decimal("9.50"), Decimal("10.50"))
    assert limit_prices(st, "2026-07-06") == (Decimal("9.00"), Decimal("11.00"))
    assert limit_prices(SpotRow("300001", "特锐德", None, Decimal("10"), None), "2020-08-21")[1] == Decimal("11.00")
    assert limit_prices(SpotRow("300001", "特锐德", None, Decimal("10"), None), "2020-08-24")[1] == Decimal("12.00")
    assert limit_prices(SpotRow("920001", "N新股", None, Decimal("10"), None), "2026-11-30") is None


def test_breadth_counts_each_row_once():
    rows = [
        SpotRow("600000", "甲", Decimal("11.00"), Decimal("10.00"), Decimal("100")),  # limit-up, advancer
        SpotRow("600001", "乙", Decimal("9.00"), Decimal("10.00"), Decimal("50")),  # limit-down, decliner
        SpotRow("600002", "丙", Decimal("10.00"), Decimal("10.00"), Decimal("25")),  # flat
        SpotRow("600003", "丁", None, Decimal("10.00"), None),  # suspended
    ]
    b = breadth_of(rows, "2026-11-30", "2026-11-30T16:00:00+08:00", "test", True)
    assert (b.stocks, b.advancers, b.decliners, b.flat, b.suspended) == (3, 1, 1, 1, 1)
    assert (b.limit_up, b.limit_down, b.turnover) == (1, 1, Decimal("175"))
