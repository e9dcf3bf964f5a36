"""Current time in Asia/Shanghai and the A-share trading-session state, so every answer
knows whether the market is open.

Sessions on a trading day (SSE/SZSE/BSE continuous trading):

    before 09:30        盘前    (09:15–09:25 opening call auction, 09:25–09:30 waiting to open)
    09:30 ≤ t < 11:30   盘中
    11:30 ≤ t < 13:00   午休
    13:00 ≤ t < 15:00   盘中    (14:57–15:00 closing call auction)
    15:00 ≤ t           收盘后

Weekends and exchange holidays are 非交易日 all day; the trading days and Beijing time
come from the market layer (pixiu_cli/market/calendar.py). A day past the calendar's
last known day is 交易日未知: the note says how far the calendar reaches and which session
the clock time would be if the exchanges are open, never that they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time

from pixiu_cli.market.trading_days import (
    CalendarEnd,
    as_shanghai,
    calendar_end,
    holiday_name,
    is_trading_day,
    knows,
    next_trading_day,
)

PRE_OPEN = "盘前"
TRADING = "盘中"
LUNCH_BREAK = "午休"
CLOSED = "收盘后"
NON_TRADING_DAY = "非交易日"
UNKNOWN_DAY = "交易日未知"

_WEEKDAYS = ("星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日")

_AUCTION_START = time(9, 15)
_AUCTION_END = time(9, 25)
_OPEN = time(9, 30)
_MORNING_CLOSE = time(11, 30)
_AFTERNOON_OPEN = time(13, 0)
_CLOSING_AUCTION = time(14, 57)
_CLOSE = time(15, 0)


@dataclass(frozen=True)
class MarketState:
    now_shanghai: datetime  # aware, Asia/Shanghai
    label: str  # 盘前 / 盘中 / 午休 / 收盘后 / 非交易日 / 交易日未知
    is_trading_day: bool  # False also when the calendar cannot say
    note: str = ""  # e.g. "开盘集合竞价 9:15–9:25", "国庆节休市，下一交易日 10月8日（星期四）"

    def describe(self) -> str:
        """One line for the dynamic block, e.g.
        "2026-01-05 10:15 星期一（北京时间）· 盘中 · 上午连续竞价"."""
        stamp = self.now_shanghai.strftime("%Y-%m-%d %H:%M")
        weekday = _WEEKDAYS[self.now_shanghai.weekday()]
        text = f"{stamp} {weekday}（北京时间）· {self.label}"
        return f"{text} · {self.note}" if self.note else text


def _next_open_note(d: date) -> str:
    try:
        nxt = next_trading_day(d)
    except CalendarEnd as end:
        return f"{end}，下一交易日未知"
    return f"下一交易日 {nxt.month}月{nxt.day}日（{_WEEKDAYS[nxt.weekday()]}）"


def market_state(now: datetime) -> MarketState:
    """Session state of the A-share market at `now` (see the module docstring)."""
    local = as_shanghai(now)
    today = local.date()
    if not knows(today):
        end = calendar_end().isoformat()
        if today.weekday() >= 5:  # weekends are closed whatever the calendar
            return MarketState(local, NON_TRADING_DAY, False, f"周末休市，交易日历只到 {end}，下一交易日未知")
        guess = _session(local).label
        return MarketState(local, UNKNOWN_DAY, False, f"交易日历只到 {end}，无法确认今天是否开市；若开市则为{guess}")
    if not is_trading_day(today):
        reason = f"{holiday_name(today)}休市" if holiday_name(today) else "周末休市"
        return MarketState(local, NON_TRADING_DAY, False, f"{reason}，{_next_open_note(today)}")
    return _session(local)


def _session(local: datetime) -> MarketState:
    """The session of a trading day at the wall-clock time of `local`."""
    today = local.date()
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
