"""Beijing time and the A-share exchanges' trading days, from the first session (1990-12-19)
to the last day the shipped calendar knows (`data/calendar/xshg_trading_days.json`, built
by scripts/build_trading_calendar.py). Two files in the pixiu home add to it: a source's
trading dates past the shipped end (`calendar_refresh.json`, written by `data sync`) and
the user's own closures (`holidays.txt`, one `YYYY-MM-DD [name]` a line). A day past the
last known one is not guessed: asking about it raises CalendarEnd, so every caller says
`交易日历只到 …` instead of treating a weekday as a session.

An aware moment is converted to Asia/Shanghai; a naive one is taken to be Shanghai
wall-clock time already. The files are read on first use, once per pixiu home.

When each market-data source has the day's bars: the Beijing time after which a sync on a
trading day gets that day's close. A fact about the sources, kept as data with where each
figure comes from and when it was read; `pixiu schedule` runs the daily chain after it."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from functools import cache
from pathlib import Path

from pixiu_cli.kernel.clock import SHANGHAI
from pixiu_cli.kernel.resources import data_dir, default_home

SHIPPED_FILE = ("calendar", "xshg_trading_days.json")
REFRESH_FILE = "calendar_refresh.json"
USER_HOLIDAYS_FILE = "holidays.txt"
UNNAMED_CLOSURE = "节假日"


class CalendarEnd(ValueError):
    """The day lies past the last day any loaded calendar knows."""

    def __init__(self, last: date):
        super().__init__(f"交易日历只到 {last.isoformat()}")
        self.last = last


@dataclass(frozen=True)
class TradingCalendarData:
    first: date  # the first session
    last: date  # the last day whose status is known
    closed: frozenset[date]  # weekday closures up to `last`
    names: dict[date, str]  # closure → holiday name, where known
    refreshed_by: str | None = None  # the source whose dates reach past the shipped end
    problems: tuple[str, ...] = ()  # unreadable lines of the user's holiday file


def _shipped() -> tuple[date, date, set[date], dict[date, str]]:
    raw = json.loads(data_dir().joinpath(*SHIPPED_FILE).read_text(encoding="utf-8"))
    closed = {date.fromisoformat(d) for d in raw["closed_weekdays"]}
    names = {date.fromisoformat(d): name for d, name in raw["names"].items()}
    return date.fromisoformat(raw["first"]), date.fromisoformat(raw["last"]), closed, names


def _weekdays(after: date, through: date):
    day = after + timedelta(days=1)
    while day <= through:
        if day.weekday() < 5:
            yield day
        day += timedelta(days=1)


def _refresh(home: Path, shipped_last: date, closed: set[date]) -> tuple[date, str | None]:
    """Extends the calendar with a source's sessions past the shipped end: every weekday up
    to the source's last listed session that it did not list is a closure."""
    try:
        raw = json.loads((home / REFRESH_FILE).read_text(encoding="utf-8"))
        sessions = {date.fromisoformat(d) for d in raw["sessions"]}
        source = str(raw["source"])
    except (OSError, ValueError, KeyError, TypeError):
        return shipped_last, None  # absent or damaged: the shipped calendar alone
    last = max(sessions, default=shipped_last)
    if last <= shipped_last:
        return shipped_last, None
    closed.update(d for d in _weekdays(shipped_last, last) if d not in sessions)
    return last, source


def _user_holidays(home: Path, closed: set[date], names: dict[date, str]) -> tuple[str, ...]:
    try:
        lines = (home / USER_HOLIDAYS_FILE).read_text(encoding="utf-8").splitlines()
    except OSError:
        return ()
    problems = []
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        day_text, _, name = text.partition(" ")
        try:
            day = date.fromisoformat(day_text)
        except ValueError:
            problems.append(f"{USER_HOLIDAYS_FILE} 第 {number} 行不是 YYYY-MM-DD 日期：{day_text[:20]}")
            continue
        closed.add(day)
        names[day] = name.strip() or names.get(day, UNNAMED_CLOSURE)
    return tuple(problems)


@cache
def _calendar_for(home_variable: str | None) -> TradingCalendarData:
    # keyed by the PIXIU_HOME variable itself: the lookup runs on every call, a Path would not be cheap
    home = default_home()
    first, last, closed, names = _shipped()
    last, refreshed_by = _refresh(home, last, closed)
    problems = _user_holidays(home, closed, names)
    return TradingCalendarData(first, last, frozenset(closed), names, refreshed_by, problems)


def trading_calendar() -> TradingCalendarData:
    return _calendar_for(os.environ.get("PIXIU_HOME"))


def reload_calendar() -> None:
    """Forget the loaded calendars (after `data sync` wrote a refresh)."""
    _calendar_for.cache_clear()


def calendar_end() -> date:
    return trading_calendar().last


def _guessed_from(sessions: list[str]) -> str | None:
    """The first New Year's Day a source lists as a session: the exchanges are always closed
    then, so from that day on the source is guessing weekdays, not publishing a calendar."""
    return next((d for d in sessions if d[5:] == "01-01"), None)


def write_refresh(sessions: list[str], source: str) -> bool:
    """Keeps a source's sessions past the shipped end in the pixiu home; True when they
    extend what is known. Nothing is lost when the home cannot be written: the shipped
    calendar stays in force."""
    _, shipped_last, _, _ = _shipped()
    beyond = sorted(d for d in set(sessions) if d > shipped_last.isoformat())
    guessed = _guessed_from(beyond)
    beyond = [d for d in beyond if guessed is None or d < guessed]
    if not beyond or date.fromisoformat(beyond[-1]) <= calendar_end():
        return False
    path = default_home() / REFRESH_FILE
    temporary = path.with_suffix(".tmp")
    try:
        temporary.write_text(json.dumps({"source": source, "sessions": beyond}, ensure_ascii=False), encoding="utf-8")
        temporary.replace(path)
    except OSError:
        return False
    reload_calendar()
    return True


def as_shanghai(moment: datetime) -> datetime:
    if moment.tzinfo is None or moment.utcoffset() is None:
        return moment.replace(tzinfo=SHANGHAI)
    return moment.astimezone(SHANGHAI)


def _as_date(d: date) -> date:
    if isinstance(d, datetime):
        return as_shanghai(d).date()
    return d


def knows(d: date) -> bool:
    """Whether the calendar can say if `d` is a trading day."""
    return _as_date(d) <= trading_calendar().last


def holiday_name(d: date) -> str | None:
    """The holiday's name (节假日 when unnamed) when the exchanges are closed on this
    weekday, else None."""
    d = _as_date(d)
    calendar = trading_calendar()
    if d not in calendar.closed:
        return None
    return calendar.names.get(d, UNNAMED_CLOSURE)


def _is_session(calendar: TradingCalendarData, d: date) -> bool:
    if d > calendar.last:
        raise CalendarEnd(calendar.last)
    return calendar.first <= d and d.weekday() < 5 and d not in calendar.closed


def is_trading_day(d: date) -> bool:
    """A weekday the exchanges are open; raises CalendarEnd past the last known day."""
    return _is_session(trading_calendar(), _as_date(d))


def next_trading_day(d: date) -> date:
    """The first trading day strictly after `d` (CalendarEnd when none is known)."""
    calendar = trading_calendar()
    day = _as_date(d) + timedelta(days=1)
    while not _is_session(calendar, day):
        day += timedelta(days=1)
    return day


def previous_trading_day(d: date) -> date:
    """The last trading day strictly before `d`, at most the calendar's end."""
    calendar = trading_calendar()
    day = min(_as_date(d) - timedelta(days=1), calendar.last)
    while day >= calendar.first and not _is_session(calendar, day):
        day -= timedelta(days=1)
    return day


def sessions_between(after: date, until: date) -> int:
    """Trading days d with after < d ≤ until (CalendarEnd when `until` is past the end)."""
    calendar = trading_calendar()
    if until > calendar.last:
        raise CalendarEnd(calendar.last)
    return sum(1 for d in _weekdays(after, until) if d >= calendar.first and d not in calendar.closed)


def sessions_in(first: date, last: date) -> list[date]:
    """The trading days in [first, last], up to the calendar's last known day."""
    calendar = trading_calendar()
    after, until = max(first, calendar.first) - timedelta(days=1), min(last, calendar.last)
    return [d for d in _weekdays(after, until) if d not in calendar.closed]


# The exchanges' close: a source with no publication time is read after it.
MARKET_CLOSE = time(15, 0)
# How long after a source publishes the day's bars the daily chain starts: a slow publication
# day still leaves the sync the day's close.
PUBLICATION_MARGIN = timedelta(minutes=30)


@dataclass(frozen=True)
class Publication:
    source: str
    at: time | None  # Beijing time the day's daily bars are complete; None: no publication (files)
    basis: str  # where the figure comes from
    read_on: str  # when that was read


PUBLICATIONS = {
    p.source: p
    for p in (
        Publication(
            "baostock",
            time(17, 30),
            "baostock.com「数据更新时间」：当前交易日 17:30 完成日 K 线数据入库（20:30 分钟线）",
            "2026-12-06",
        ),
        Publication(
            "akshare",
            time(15, 30),
            "akshare 的日线接口 stock_zh_a_daily（新浪）与 stock_zh_a_hist（东方财富）：历史数据按日更新，"
            "当日收盘价请在收盘后获取；15:00 收盘集合竞价结束，留半小时给行情源更新",
            "2026-12-06",
        ),
        Publication("csv", None, "本地 CSV 文件（pixiu data import）：没有发布时间，导入什么就是什么", "2026-12-06"),
    )
}


def default_at(source: str) -> time:
    """When the daily chain runs by default: the source's publication time plus the margin
    (after the close for a source that publishes nothing)."""
    published = PUBLICATIONS[source].at or MARKET_CLOSE
    return (datetime.combine(date.min, published) + PUBLICATION_MARGIN).time()


def too_early(at: time, source: str) -> Publication | None:
    """The source's publication when `at` comes before it: a sync then gets the day before's close."""
    published = PUBLICATIONS[source]
    return published if published.at is not None and at < published.at else None
