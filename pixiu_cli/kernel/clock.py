"""The one wall clock. Every "now" pixiu uses — the block's 当前时间, the session a command
runs in, the stamps of notes, trades, turns and briefs — comes from a `Clock` that
`app.clock_of` builds once from the settings: the machine's time in Beijing, or the moment
`PIXIU_NOW` pins (ISO 8601; naive is Beijing time), so a test can run at a chosen session.

`machine_seconds` is the one exception, and deliberately not pinned: it is compared with
times others wrote on the machine's clock (a file's modification time, an HTTP Retry-After
date, the offline provider's cache expiry), which a pinned moment would only confuse.
Durations and deadlines use time.monotonic, which is no wall clock.

Nothing else in the product reads the time (tests/test_one_clock.py scans for it).

A day as the user says it: 今天, 昨天, 前天, 大前天, 周五 / 星期五 / 礼拜五, 上周五, 上上周五,
本周一, 3月3日 / 3月3号, 2025年3月3日, 2025-03-03, 2025/3/3. A month and day without a year,
and a weekday without 上 or 本, is the latest such day that is not in the future; weeks start on
Monday. These are calendar days: whether the exchanges were open is the trading calendar's
question (services/account.py trade_day)."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Protocol
from zoneinfo import ZoneInfo

SHANGHAI = ZoneInfo("Asia/Shanghai")


class Clock(Protocol):
    def __call__(self) -> datetime:
        """The current moment, aware, in Asia/Shanghai."""
        ...


def system_clock() -> datetime:
    """The machine's time, in Beijing."""
    return datetime.now(SHANGHAI)


@dataclass(frozen=True)
class PinnedClock:
    """Always the same moment (PIXIU_NOW)."""

    moment: datetime

    def __call__(self) -> datetime:
        return self.moment


def pinned_moment(text: str) -> datetime:
    """`text` (ISO 8601) as an aware Beijing moment; naive is Beijing time. ValueError when
    it is no ISO 8601 time."""
    moment = datetime.fromisoformat(text.strip())
    return moment.replace(tzinfo=SHANGHAI) if moment.tzinfo is None else moment.astimezone(SHANGHAI)


def clock_at(pinned: datetime | None) -> Clock:
    return PinnedClock(pinned.astimezone(SHANGHAI)) if pinned is not None else system_clock


def machine_seconds() -> float:
    """Seconds since the epoch on the machine's clock, never pinned (see the module docstring)."""
    return time.time()


def iso(moment: datetime) -> str:
    """A moment as the database stores it: ISO 8601 to the second."""
    return moment.isoformat(timespec="seconds")


_RELATIVE = {"今天": 0, "今日": 0, "昨天": 1, "昨日": 1, "前天": 2, "大前天": 3}
_FULL = re.compile(r"(\d{4})\s*(?:年|-|/|\.)\s*(\d{1,2})\s*(?:月|-|/|\.)\s*(\d{1,2})\s*(?:日|号)?")
_MONTH_DAY = re.compile(r"(?<!\d)(\d{1,2})\s*月\s*(\d{1,2})\s*(?:日|号)")
_WEEKDAY_NUMBER = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "七": 6}
_WEEKS_BACK = {"": None, "本": 0, "这": 0, "上": 1, "上上": 2}
_WEEKDAY = re.compile(r"(?<!下)(?<!下个)(上上|上|本|这)?个?(?:周|星期|礼拜)([一二三四五六日天七])")
# longest first, so 大前天 is not read as 前天
_RELATIVE_WORD = re.compile("|".join(sorted(_RELATIVE, key=len, reverse=True)))


class DateWordsError(ValueError):
    """The words name no day, or a day after today; the message is one line."""


def _day(year: int, month: int, day_: int, words: str) -> date:
    try:
        return date(year, month, day_)
    except ValueError:
        raise DateWordsError(f"没有这一天：{words}") from None


def find_date_words(text: str) -> str | None:
    """The first part of `text` that names a day, if any (for reading a reported trade)."""
    found = [m for p in (_FULL, _MONTH_DAY, _WEEKDAY, _RELATIVE_WORD) if (m := p.search(text))]
    return min(found, key=lambda m: (m.start(), -len(m.group(0)))).group(0) if found else None


def _weekday(match: re.Match, today: date) -> date:
    """周五: the latest Friday not after today; 本周五 / 上周五 / 上上周五: that week's Friday."""
    back, weekday = _WEEKS_BACK[match.group(1) or ""], _WEEKDAY_NUMBER[match.group(2)]
    monday = today - timedelta(days=today.weekday())
    if back is None:
        day = monday + timedelta(days=weekday)
        return day if day <= today else day - timedelta(weeks=1)
    return monday - timedelta(weeks=back) + timedelta(days=weekday)


def parse_date_words(words: str, today: date) -> date:
    """The day `words` name; DateWordsError for none, or one after `today`."""
    text = words.strip()
    if text in _RELATIVE:
        return today - timedelta(days=_RELATIVE[text])
    full, weekday = _FULL.fullmatch(text), _WEEKDAY.fullmatch(text)
    if full:
        when = _day(*(int(g) for g in full.groups()), words=text)
    elif weekday:
        when = _weekday(weekday, today)
    else:
        short = _MONTH_DAY.fullmatch(text)
        if not short:
            raise DateWordsError(
                f"无法识别的日期：{text}（可以写 今天、昨天、前天、周五、上周五、3月3日、2025年3月3日 或 2025-03-03）"
            )
        month, day_ = int(short.group(1)), int(short.group(2))
        when = _day(today.year, month, day_, text)
        if when > today:
            when = _day(today.year - 1, month, day_, text)
    if when > today:
        raise DateWordsError(f"{text} 在今天（{today.isoformat()}）之后：不能记录未来的交易")
    return when


def day_label(day: date) -> str:
    """2026-11-27（周五）."""
    return f"{day.isoformat()}（周{'一二三四五六日'[day.weekday()]}）"
