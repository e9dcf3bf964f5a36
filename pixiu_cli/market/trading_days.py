"""Beijing time and the A-share exchanges' trading days by rule: weekdays minus the exchange
holidays shipped in `data/calendar/cn_a_share_holidays.json`; a year the file does not
cover falls back to "weekends only". An aware moment is converted to Asia/Shanghai; a
naive one is taken to be Shanghai wall-clock time already."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import cache
from zoneinfo import ZoneInfo

from pixiu_cli.resources import data_dir

SHANGHAI = ZoneInfo("Asia/Shanghai")
CALENDAR_FILE = ("calendar", "cn_a_share_holidays.json")


@dataclass(frozen=True)
class HolidayCalendar:
    closed: dict[date, str]  # weekday closures → holiday name
    covered_years: frozenset[int]


@cache
def holiday_calendar() -> HolidayCalendar:
    path = data_dir().joinpath(*CALENDAR_FILE)
    raw = json.loads(path.read_text(encoding="utf-8"))
    closed: dict[date, str] = {}
    for entries in raw["closed_weekdays"].values():
        for entry in entries:
            closed[date.fromisoformat(entry["date"])] = entry["name"]
    return HolidayCalendar(closed=closed, covered_years=frozenset(int(y) for y in raw["covered_years"]))


def as_shanghai(moment: datetime) -> datetime:
    if moment.tzinfo is None or moment.utcoffset() is None:
        return moment.replace(tzinfo=SHANGHAI)
    return moment.astimezone(SHANGHAI)


def _as_date(d: date) -> date:
    if isinstance(d, datetime):
        return as_shanghai(d).date()
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
