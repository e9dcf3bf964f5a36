"""Freshness in trading days: weekends, the shipped calendar (checked against XSHG) and a
source's own trading dates; the source's dates checked against the shipped calendar; a
user's holiday file and a source's refresh past the shipped end."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest

from pixiu_cli.market.calendar import (
    SHANGHAI,
    TradingCalendar,
    beyond_calendar,
    calendar_mismatches,
    last_complete_session,
)
from pixiu_cli.market.store import MarketStore
from pixiu_cli.market.trading_days import (
    CalendarEnd,
    calendar_end,
    holiday_name,
    is_trading_day,
    reload_calendar,
    trading_calendar,
    write_refresh,
)


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


XSHG_WARNINGS = pytest.mark.filterwarnings("ignore:Series.values")  # exchange_calendars' own use of pandas


@XSHG_WARNINGS
def test_shipped_trading_days_equal_xshg_2015_to_2026():
    import exchange_calendars

    xshg = exchange_calendars.get_calendar("XSHG", start="2015-01-01", end="2026-12-31")
    reference = [ts.date() for ts in xshg.sessions]
    ours, day = [], date(2015, 1, 1)
    while day <= date(2026, 12, 31):
        if is_trading_day(day):
            ours.append(day)
        day += timedelta(days=1)
    assert ours == reference
    assert len(ours) > 2900  # twelve years of about 243 sessions, not a vacuous match


@XSHG_WARNINGS
def test_staleness_of_an_old_series_counts_xshg_sessions(db):
    import exchange_calendars

    now = at("2026-11-30 16:00")
    xshg = exchange_calendars.get_calendar("XSHG", start="2022-01-01", end="2026-12-31")
    expected = len([ts for ts in xshg.sessions if date(2022, 6, 1) < ts.date() <= date(2026, 11, 30)])
    assert TradingCalendar(MarketStore(db)).stale_days("2022-06-01", now) == expected


def test_staleness_past_the_calendar_stops_at_its_end_and_says_so(db):
    calendar = TradingCalendar(MarketStore(db))
    assert calendar.stale_days("2026-12-30", at("2027-01-06 16:00")) == 1  # 12-31, then unknown
    assert beyond_calendar(at("2027-01-06 16:00")) == "交易日历只到 2026-12-31"
    assert beyond_calendar(at("2026-12-31 16:00")) is None
    assert last_complete_session(at("2027-01-06 16:00")) == date(2026, 12, 31)


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("PIXIU_HOME", str(tmp_path))
    reload_calendar()
    yield tmp_path
    reload_calendar()


def test_a_user_holiday_file_adds_closures_and_names_bad_lines(home):
    (home / "holidays.txt").write_text("# 自定义休市\n2026-11-03 台风停市\n2026-11-04\nnot-a-date\n", encoding="utf-8")
    reload_calendar()
    assert not is_trading_day(date(2026, 11, 3)) and holiday_name(date(2026, 11, 3)) == "台风停市"
    assert not is_trading_day(date(2026, 11, 4)) and holiday_name(date(2026, 11, 4)) == "节假日"
    assert is_trading_day(date(2026, 11, 5))
    assert trading_calendar().problems == ("holidays.txt 第 4 行不是 YYYY-MM-DD 日期：not-a-date",)


def test_a_source_refresh_extends_the_calendar_past_the_shipped_end(home):
    sessions = ["2026-12-31", "2027-01-04", "2027-01-05", "2027-01-07"]  # 01-06 closed, as the source says
    assert write_refresh(sessions, "baostock")
    assert calendar_end() == date(2027, 1, 7) and trading_calendar().refreshed_by == "baostock"
    assert is_trading_day(date(2027, 1, 5)) and not is_trading_day(date(2027, 1, 6))
    assert not is_trading_day(date(2027, 1, 1))  # a weekday the source did not list
    with pytest.raises(CalendarEnd, match="交易日历只到 2027-01-07"):
        is_trading_day(date(2027, 1, 8))
    assert not write_refresh(["2026-12-30"], "akshare")  # nothing past what is known: left alone
    (home / "calendar_refresh.json").write_text("{broken", encoding="utf-8")
    reload_calendar()
    assert calendar_end() == date(2026, 12, 31)  # a damaged refresh falls back to the shipped file


def test_a_source_that_lists_new_years_day_is_guessing_and_is_not_believed(home):
    guessed = ["2027-01-04", "2027-01-05", "2027-12-31", "2028-01-03", "2028-01-01"]  # 2028-01-01 a "session"
    assert write_refresh(["2026-12-31", "2027-01-04", "2027-01-05"], "baostock")
    assert not write_refresh(["2027-01-01", "2027-01-04"], "akshare")  # all of it guessed: nothing kept
    assert calendar_end() == date(2027, 1, 5)
    assert write_refresh(guessed, "akshare")
    assert calendar_end() == date(2027, 12, 31)  # kept up to the guessed year only


def test_a_home_that_cannot_be_written_keeps_the_shipped_calendar(tmp_path, monkeypatch):
    monkeypatch.setenv("PIXIU_HOME", str(tmp_path / "missing" / "home"))
    reload_calendar()
    try:
        assert not write_refresh(["2027-01-04"], "baostock")
        assert calendar_end() == date(2026, 12, 31)
    finally:
        reload_calendar()
