import json
from datetime import UTC, date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pixiu_cli.conversation.context.memory_classes import market_state
from pixiu_cli.kernel.resources import data_dir
from pixiu_cli.market.calendar import SHANGHAI
from pixiu_cli.market.trading_days import CalendarEnd, holiday_name, is_trading_day, knows, next_trading_day

SH = ZoneInfo("Asia/Shanghai")
LABELS = {"盘前", "盘中", "午休", "收盘后", "非交易日", "交易日未知"}


def at(y, m, d, hh, mm, tz=SH):
    return datetime(y, m, d, hh, mm, tzinfo=tz)


@pytest.mark.parametrize(
    ("hh", "mm", "label"),
    [
        (0, 0, "盘前"),
        (9, 14, "盘前"),
        (9, 15, "盘前"),
        (9, 29, "盘前"),
        (9, 30, "盘中"),
        (11, 29, "盘中"),
        (11, 30, "午休"),
        (12, 59, "午休"),
        (13, 0, "盘中"),
        (14, 59, "盘中"),
        (15, 0, "收盘后"),
        (23, 59, "收盘后"),
    ],
)
def test_session_edges_on_a_trading_day(hh, mm, label):
    state = market_state(at(2026, 1, 5, hh, mm))  # Monday after 元旦
    assert state.label == label
    assert state.is_trading_day


def test_call_auction_notes():
    assert "集合竞价" in market_state(at(2026, 1, 5, 9, 20)).note
    assert "9:30" in market_state(at(2026, 1, 5, 9, 27)).note
    assert "收盘集合竞价" in market_state(at(2026, 1, 5, 14, 58)).note
    assert "集合竞价" not in market_state(at(2026, 1, 5, 10, 0)).note


def test_weekend_is_not_a_trading_day():
    state = market_state(at(2026, 1, 10, 10, 0))  # Saturday
    assert state.label == "非交易日"
    assert not state.is_trading_day
    assert "周末" in state.note and "1月12日" in state.note


@pytest.mark.parametrize(
    ("day", "name"),
    [
        (date(2026, 10, 1), "国庆节"),
        (date(2026, 10, 7), "国庆节"),
        (date(2026, 2, 16), "春节"),
        (date(2026, 2, 23), "春节"),
        (date(2026, 1, 2), "元旦"),
        (date(2026, 4, 6), "清明节"),
        (date(2026, 5, 5), "劳动节"),
        (date(2026, 6, 19), "端午节"),
        (date(2026, 9, 25), "中秋节"),
        (date(2025, 1, 28), "春节"),
        (date(2025, 10, 8), "国庆节、中秋节"),
    ],
)
def test_holidays(day, name):
    assert not is_trading_day(day)
    assert holiday_name(day) == name
    state = market_state(datetime.combine(day, datetime.min.time(), SH).replace(hour=10))
    assert state.label == "非交易日"
    assert name in state.note


def test_national_day_2026_reopens_on_the_eighth():
    state = market_state(at(2026, 10, 1, 10, 30))
    assert state.label == "非交易日"
    assert next_trading_day(date(2026, 10, 1)) == date(2026, 10, 8)
    assert "10月8日" in state.note
    assert market_state(at(2026, 10, 8, 10, 30)).label == "盘中"


def test_make_up_working_weekend_is_still_closed():
    # 2026-01-04 (Sunday) and 2026-10-10 (Saturday) are 调休 working days, not trading days.
    assert not is_trading_day(date(2026, 1, 4))
    assert not is_trading_day(date(2026, 10, 10))


def test_ordinary_weekdays_trade():
    assert is_trading_day(date(2026, 1, 5))
    assert is_trading_day(date(2026, 2, 24))
    assert is_trading_day(date(2025, 10, 9))


def test_past_the_calendar_no_weekday_is_called_a_session():
    with pytest.raises(CalendarEnd, match="交易日历只到 2026-12-31"):
        is_trading_day(date(2030, 10, 1))
    state = market_state(at(2027, 1, 1, 10, 0))  # a Friday the shipped calendar does not know
    assert state.label == "交易日未知" and not state.is_trading_day
    assert "交易日历只到 2026-12-31" in state.note and "无法确认" in state.note
    assert "盘中 ·" not in state.describe()
    weekend = market_state(at(2027, 1, 2, 10, 0))
    assert weekend.label == "非交易日" and "交易日历只到 2026-12-31" in weekend.note


def test_after_the_last_known_close_the_next_session_is_not_invented():
    state = market_state(at(2026, 12, 31, 16, 0))
    assert state.label == "收盘后"
    assert "交易日历只到 2026-12-31" in state.note and "下一交易日未知" in state.note
    assert "1月1日" not in state.note and "1月4日" not in state.note
    assert "12月31日" in market_state(at(2026, 12, 30, 16, 0)).note


def test_older_years_know_their_holidays():
    assert not is_trading_day(date(2015, 2, 19))  # 春节 2015
    assert holiday_name(date(2015, 2, 19)) == "节假日"  # closed, unnamed in the shipped file
    assert "节假日休市" in market_state(at(2015, 2, 19, 10, 0)).note
    assert not is_trading_day(date(1990, 12, 18)) and is_trading_day(date(1990, 12, 19))  # the first session


def test_utc_input_is_converted():
    state = market_state(datetime(2026, 1, 5, 1, 30, tzinfo=UTC))  # 09:30 in Shanghai
    assert state.label == "盘中"
    assert state.now_shanghai.utcoffset() == timedelta(hours=8)
    assert state.now_shanghai.hour == 9 and state.now_shanghai.minute == 30
    # 2026-01-04 23:00 UTC is Monday 07:00 in Shanghai: a trading day, before the open.
    assert market_state(datetime(2026, 1, 4, 23, 0, tzinfo=UTC)).label == "盘前"
    # 2026-01-05 07:00 UTC is 15:00 in Shanghai.
    assert market_state(datetime(2026, 1, 5, 7, 0, tzinfo=UTC)).label == "收盘后"


def test_other_timezones_and_naive_input():
    new_york = ZoneInfo("America/New_York")
    assert market_state(datetime(2026, 1, 4, 21, 0, tzinfo=new_york)).label == "盘中"  # 10:00 SH
    naive = market_state(datetime(2026, 1, 5, 12, 0))
    assert naive.label == "午休"
    assert naive.now_shanghai.tzinfo is not None


def test_is_trading_day_accepts_aware_datetimes():
    # Friday 2026-01-09 20:00 UTC is Saturday 04:00 in Shanghai.
    assert not is_trading_day(datetime(2026, 1, 9, 20, 0, tzinfo=UTC))


def test_describe_is_one_chinese_line():
    text = market_state(at(2026, 1, 5, 10, 15)).describe()
    assert text.startswith("2026-01-05 10:15 星期一")
    assert "盘中" in text and "\n" not in text


def test_calendar_file_lists_weekday_closures_only():
    raw = json.loads((data_dir() / "calendar" / "xshg_trading_days.json").read_text("utf-8"))
    assert (raw["first"], raw["last"]) == ("1990-12-19", "2026-12-31")
    days = [date.fromisoformat(d) for d in raw["closed_weekdays"]]
    assert days == sorted(days) and len(days) == len(set(days))
    assert all(d.weekday() < 5 for d in days)
    assert len([d for d in days if d.year == 2025]) == 18
    assert len([d for d in days if d.year == 2026]) == 19
    assert set(raw["names"]) <= set(raw["closed_weekdays"])


@settings(max_examples=200, deadline=None)
@given(
    st.datetimes(
        min_value=datetime(2024, 6, 1),
        max_value=datetime(2027, 6, 1),
        timezones=st.sampled_from(
            [UTC, SH, ZoneInfo("America/New_York"), ZoneInfo("Asia/Kolkata"), timezone(timedelta(hours=-11))]
        ),
    )
)
def test_any_aware_instant(now):
    state = market_state(now)
    assert state.label in LABELS
    assert state.now_shanghai.timestamp() == now.timestamp()  # same instant (PEP 495 folds compare unequal)
    assert state.now_shanghai.tzinfo == SHANGHAI
    if not knows(state.now_shanghai.date()):
        assert state.label in {"交易日未知", "非交易日"} and "交易日历只到" in state.note
    elif state.label == "非交易日":
        assert not is_trading_day(state.now_shanghai.date())
    else:
        assert is_trading_day(state.now_shanghai.date())
