"""Freshness in trading days: weekends, the shipped holidays and a source's own trading
dates; and the source's dates checked against the shipped holidays."""

from __future__ import annotations

from datetime import datetime

from pixiu_cli.market.calendar import TradingCalendar, calendar_mismatches, last_complete_session
from pixiu_cli.market.trading_days import SHANGHAI
from pixiu_cli.store.market import MarketStore


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=SHANGHAI)


def test_last_complete_session():
    assert last_complete_session(at("2026-11-02 10:00")).isoformat() == "2026-10-30"  # Monday morning → Friday
    assert last_complete_session(at("2026-11-02 15:00")).isoformat() == "2026-11-02"
    assert last_complete_session(at("2026-10-08 09:00")).isoformat() == "2026-09-30"  # after 国庆


def test_stale_days_count_trading_days_only(db):
    calendar = TradingCalendar(MarketStore(db))
    assert calendar.stale_days("2026-10-30", at("2026-11-02 10:00")) == 0
    assert calendar.stale_days("2026-10-30", at("2026-11-02 16:00")) == 1
    assert calendar.stale_days("2026-09-30", at("2026-10-08 16:00")) == 1  # the holiday week is not stale
    assert calendar.stale_days(None, at("2026-10-08 16:00")) is None


def test_a_source_trading_day_list_wins_where_it_reaches(db):
    market = MarketStore(db)
    # The source says 2026-11-03 was not a trading day (as if an unscheduled closure).
    market.add_trading_days(["2026-11-02", "2026-11-04"], "baostock")
    assert TradingCalendar(market).trading_days_between("2026-10-30", "2026-11-05") == 3  # 2, 4 + rule for 5


def test_source_dates_disagreeing_with_shipped_holidays_are_named():
    days = ["2026-09-30", "2026-10-05", "2026-10-08", "2026-10-09"]  # 10-05 is 国庆 in the shipped file
    assert calendar_mismatches(days, "2026-09-30", "2026-10-09") == ["2026-10-05 来源为交易日，内置日历为休市"]
    assert calendar_mismatches(["2026-09-30", "2026-10-08"], "2026-09-30", "2026-10-09") == [
        "2026-10-09 内置日历为交易日，来源为休市"
    ]
    assert calendar_mismatches([], "2026-09-30", "2026-10-09") == []  # the source said nothing
