"""Holidays as the market lives them: 节前, 国庆后, 春节前后, 过完年 name a long market closure,
found on the trading calendar (`market/trading_days.py`, which reads the exchanges' closed
weekdays), never on a fixed list of dates.

A closure is a run of days the exchanges are closed (weekends and the weekdays closed for a
holiday) that holds at least one closed weekday and lasts at least ``min_days`` days. Which
holiday a closure is comes from ``[[holiday]]`` in ``data/selection/rules/windows.toml``: a
closure is a named holiday's when one of its days falls between the holiday's ``falls``
month-days (the lunar holidays fall on a span of Gregorian dates); a bare 节 / 假期 names any.
The closure meant is the most recent one that began by today.

Each side of it is a span of trading days: before it the ``sessions_before`` sessions up to
the closure (and a weekend that opens it, still before the holiday itself), after it from the reopening until today, around it from those sessions before
to ``sessions_after`` sessions after the reopening, during it the closure itself up to the
session after the reopening (what happened while the market was shut is reported and traded
on in those days), its
first session (节后第一天, 节后首日) the reopening alone."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache

from pixiu_cli.market.names.rules import table
from pixiu_cli.market.trading_days import CalendarEnd, next_trading_day, previous_trading_day, trading_calendar

# How far back a closure is looked for: a named holiday comes round once a year.
_LOOK_BACK_DAYS = 400
BEFORE, AFTER, AROUND, DURING, FIRST = "before", "after", "around", "during", "first"


@dataclass(frozen=True)
class Holiday:
    name: str
    words: tuple[str, ...]
    falls: tuple[str, str] | None  # (MM-DD, MM-DD); None: any closure


@dataclass(frozen=True)
class Closure:
    first: date  # the first closed day (a weekend day when the closure starts on one)
    last: date


@dataclass(frozen=True)
class HolidaySpan:
    start: date
    end: date
    reading: str  # Chinese: which closure, and which side of it


@cache
def _settings() -> dict:
    return table("windows.toml")["holidays"]


@cache
def holidays() -> tuple[Holiday, ...]:
    return tuple(
        Holiday(h["name"], tuple(h["words"]), tuple(h["falls"]) if "falls" in h else None)
        for h in table("windows.toml")["holiday"]
    )


@cache
def sides() -> dict[str, str]:
    """A side word → its side (前 → before)."""
    return {word: side for side, words in _settings()["sides"].items() for word in words}


def holiday_of(word: str) -> Holiday:
    """The holiday a matched word names (过年 → 春节), by its words as patterns."""
    for holiday in holidays():
        if any(re.fullmatch(w, word) for w in holiday.words):
            return holiday
    raise ValueError(f"selection rules: no holiday has the word {word!r}")


def _is(closure: Closure, holiday: Holiday, names: dict[date, str]) -> bool:
    """Whether the closure is the holiday's: by the calendar's names of its days where it
    has them (国庆节、中秋节 is both), else by the dates the holiday falls on."""
    if holiday.falls is None:
        return True
    days = [closure.first + timedelta(days=i) for i in range((closure.last - closure.first).days + 1)]
    named = [names[d] for d in days if d in names]
    if named:
        return any(holiday.name in n for n in named)
    return any(holiday.falls[0] <= d.strftime("%m-%d") <= holiday.falls[1] for d in days)


def closures(today: date) -> tuple[Closure, ...]:
    """The long closures that began by `today`, newest first, from the trading calendar."""

    calendar = trading_calendar()
    found: list[Closure] = []
    day = min(today, calendar.last)
    run: list[date] = []
    stop = day - timedelta(days=_LOOK_BACK_DAYS)
    while day >= max(stop, calendar.first):
        if day.weekday() >= 5 or day in calendar.closed:
            run.append(day)
        else:
            _keep(run, calendar.closed, found)
            run = []
        day -= timedelta(days=1)
    return tuple(found)


def _keep(run: list[date], closed: frozenset[date], found: list[Closure]) -> None:
    if len(run) >= int(_settings()["min_days"]) and any(d in closed for d in run):
        found.append(Closure(run[-1], run[0]))


def _sessions(start: date, count: int, step: int) -> date:
    """The `count`-th trading day from `start` (itself a session or not), backwards or forwards."""

    day = start
    for _ in range(count):
        try:
            day = previous_trading_day(day) if step < 0 else next_trading_day(day)
        except CalendarEnd:
            break
    return day


def _eve(closure: Closure) -> date:
    """The last day before the holiday itself: a weekend that opens the closure (春节 2026 closed
    from Saturday 02-14) is still before it, and a report written then is 节前."""
    day = closure.first
    while day.weekday() >= 5 and day < closure.last:
        day += timedelta(days=1)
    return day - timedelta(days=1)


def span(word: str, side: str, today: date) -> HolidaySpan | None:
    """The trading days `side` of the most recent closure of the holiday `word` names."""

    holiday, names = holiday_of(word), trading_calendar().names
    closure = next((c for c in closures(today) if _is(c, holiday, names)), None)
    if closure is None:
        return None
    settings = _settings()
    reopening = _sessions(closure.last, 1, 1)
    if side == DURING:  # what happened while closed is published and traded on after the reopening
        start, end = closure.first, _sessions(reopening, 1, 1)
    elif side == FIRST:
        start, end = reopening, reopening
    elif side == BEFORE:
        start, end = _sessions(closure.first, int(settings["sessions_before"]), -1), _eve(closure)
    elif side == AFTER:
        start, end = reopening, today
    else:
        start = _sessions(closure.first, int(settings["sessions_before"]), -1)
        end = min(_sessions(reopening, int(settings["sessions_after"]) - 1, 1), today)
    if start > today:
        return None
    closed = f"{holiday.name if holiday.falls else '最近一次长假'}休市 {closure.first.isoformat()} 至 {closure.last.isoformat()}"
    return HolidaySpan(start, min(end, today), f"{closed}，取{_side_said(side)}")


def _side_said(side: str) -> str:
    settings = _settings()
    if side == BEFORE:
        return f"休市前 {settings['sessions_before']} 个交易日"
    if side == AFTER:
        return "复市至今"
    if side == AROUND:
        return f"休市前 {settings['sessions_before']} 个至复市后 {settings['sessions_after']} 个交易日"
    if side == FIRST:
        return "复市首日"
    return "休市期间（到复市后第二个交易日）"
