"""Current time in Asia/Shanghai and the A-share trading-session state, so every answer
knows whether the market is open.

Sessions on a trading day (SSE/SZSE/BSE continuous trading):

    before 09:30        盘前    (09:15–09:25 opening call auction, 09:25–09:30 waiting to open)
    09:30 ≤ t < 11:30   盘中
    11:30 ≤ t < 13:00   午休
    13:00 ≤ t < 15:00   盘中    (14:57–15:00 closing call auction)
    15:00 ≤ t           收盘后

Weekends and exchange holidays are 非交易日 all day. Holidays come from
`data/calendar/cn_a_share_holidays.json`; a year the file does not cover falls back to
"weekends only". An aware `now` is converted to Asia/Shanghai; a naive one is taken to be
Shanghai wall-clock time already.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from functools import cache
from zoneinfo import ZoneInfo

from pixiu_cli.resources import data_dir

SHANGHAI = ZoneInfo("Asia/Shanghai")
CALENDAR_FILE = ("calendar", "cn_a_share_holidays.json")

PRE_OPEN = "盘前"
TRADING = "盘中"
LUNCH_BREAK = "午休"
CLOSED = "收盘后"
NON_TRADING_DAY = "非交易日"

_WEEKDAYS = ("星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日")

_AUCTION_START = time(9, 15)
_AUCTION_END = time(9, 25)
_OPEN = time(9, 30)
_MORNING_CLOSE = time(11, 30)
_AFTERNOON_OPEN = time(13, 0)
_CLOSING_AUCTION = time(14, 57)
_CLOSE = time(15, 0)


@dataclass(frozen=True)
class HolidayCalendar:
    closed: dict[date, str]  # weekday closures → holiday name
    covered_years: frozenset[int]


@dataclass(frozen=True)
class MarketState:
    now_shanghai: datetime  # aware, Asia/Shanghai
    label: str  # 盘前 / 盘中 / 午休 / 收盘后 / 非交易日
    is_trading_day: bool
    note: str = ""  # e.g. "开盘集合竞价 9:15–9:25", "国庆节休市，下一交易日 10月8日（星期四）"

    def describe(self) -> str:
        """One line for the dynamic block, e.g.
        "2026-01-05 10:15 星期一（北京时间）· 盘中 · 上午连续竞价"."""
        stamp = self.now_shanghai.strftime("%Y-%m-%d %H:%M")
        weekday = _WEEKDAYS[self.now_shanghai.weekday()]
        text = f"{stamp} {weekday}（北京时间）· {self.label}"
        return f"{text} · {self.note}" if self.note else text


@cache
def holiday_calendar() -> HolidayCalendar:
    path = data_dir().joinpath(*CALENDAR_FILE)
    raw = json.loads(path.read_text(encoding="utf-8"))
    closed: dict[date, str] = {}
    for entries in raw["closed_weekdays"].values():
        for entry in entries:
            closed[date.fromisoformat(entry["date"])] = entry["name"]
    return HolidayCalendar(closed=closed, covered_years=frozenset(int(y) for y in raw["covered_years"]))


def _as_shanghai(moment: datetime) -> datetime:
    if moment.tzinfo is None or moment.utcoffset() is None:
        return moment.replace(tzinfo=SHANGHAI)
    return moment.astimezone(SHANGHAI)


def _as_date(d: date) -> date:
    if isinstance(d, datetime):
        return _as_shanghai(d).date()
    return d


def holiday_name(d: date) -> str | None:
    """The holiday's name when the exchanges are closed on this weekday, else None."""
    return holiday_calendar().closed.get(_as_date(d))


def is_trading_day(d: date) -> bool:
    """Weekday and not an exchange holiday (holidays known for the covered years only)."""
    d = _as_date(d)
    return d.weekday() < 5 and holiday_name(d) is None


def next_trading_day(d: date) -> date:
    """The first trading day strictly after `d`."""
    day = _as_date(d) + timedelta(days=1)
    for _ in range(60):  # the longest closure is far shorter; the bound keeps this total
        if is_trading_day(day):
            return day
        day += timedelta(days=1)
    return day


def _next_open_note(d: date) -> str:
    nxt = next_trading_day(d)
    return f"下一交易日 {nxt.month}月{nxt.day}日（{_WEEKDAYS[nxt.weekday()]}）"


def market_state(now: datetime) -> MarketState:
    """Session state of the A-share market at `now` (see the module docstring)."""
    local = _as_shanghai(now)
    today = local.date()
    if not is_trading_day(today):
        reason = f"{holiday_name(today)}休市" if holiday_name(today) else "周末休市"
        return MarketState(local, NON_TRADING_DAY, False, f"{reason}，{_next_open_note(today)}")
    t = local.time().replace(tzinfo=None)
    if t < _OPEN:
        if _AUCTION_START <= t < _AUCTION_END:
            note = "开盘集合竞价 9:15–9:25"
        elif _AUCTION_END <= t:
            note = "集合竞价已结束，9:30 开盘"
        else:
            note = "9:15 开始集合竞价，9:30 开盘"
        return MarketState(local, PRE_OPEN, True, note)
    if t < _MORNING_CLOSE:
        return MarketState(local, TRADING, True, "上午连续竞价")
    if t < _AFTERNOON_OPEN:
        return MarketState(local, LUNCH_BREAK, True, "13:00 恢复交易")
    if t < _CLOSE:
        note = "收盘集合竞价 14:57–15:00" if t >= _CLOSING_AUCTION else "下午连续竞价"
        return MarketState(local, TRADING, True, note)
    return MarketState(local, CLOSED, True, f"今日已收盘，{_next_open_note(today)}")
