"""When the daily chain runs: only on a day the exchanges are open (the shipped calendar, in
Beijing time whatever the machine's zone), after the close; and what a scheduler needs to
run it at that moment — the chain's commands and the same moment on the machine's clock."""

from __future__ import annotations

import os
import re
import shlex
import sys
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pixiu_cli.kernel.clock import SHANGHAI
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.market.trading_days import MARKET_CLOSE, CalendarEnd, holiday_name, is_trading_day

_AT = re.compile(r"(\d{1,2}):(\d{2})")


@dataclass(frozen=True)
class ClosedDay:
    day: date  # Beijing date
    weekend: bool
    holiday: str | None  # the holiday's name, when the calendar has one


def closed_day(now: datetime) -> ClosedDay | None:
    """Why today (Beijing date) is no trading day, or None when it is one — also when the
    calendar does not reach today and it is a weekday (market.calendar.beyond_calendar says so)."""
    day = now.astimezone(SHANGHAI).date()
    if day.weekday() >= 5:
        return ClosedDay(day, True, None)
    try:
        if is_trading_day(day):
            return None
    except CalendarEnd:
        return None
    return ClosedDay(day, False, holiday_name(day))


def parse_at(text: str) -> time:
    """`15:30` → 15:30; refused unless it is a time after the 15:00 close."""
    match = _AT.fullmatch(text.strip())
    if not match or int(match.group(1)) > 23 or int(match.group(2)) > 59:
        raise RequestError(f"--at 应为 HH:MM（北京时间），而不是 {text!r}")
    at = time(int(match.group(1)), int(match.group(2)))
    if at < MARKET_CLOSE:
        raise RequestError(f"--at {text} 在 15:00 收盘之前：简报要用当天收盘价，请选 15:00 之后")
    return at


def machine_zone(env=os.environ) -> tzinfo | None:
    """The machine's zone by name (TZ, else /etc/localtime's target), None when unknown."""
    names = [env.get("TZ", "").lstrip(":")]
    try:
        names.append(str(Path("/etc/localtime").resolve()).split("zoneinfo/", 1)[1])
    except (OSError, IndexError):
        pass
    for name in filter(None, names):
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            continue
    return None


@dataclass(frozen=True)
class Schedule:
    at: time  # Beijing time
    local: datetime  # the same moment today on the machine's clock
    local_zone: str  # its name
    shifts: bool  # the machine's zone changes offset during the year (daylight saving)
    commands: tuple[tuple[str, ...], ...]  # the chain, each an argv
    source: str  # the market-data source its sync reads
    home: Path
    log: Path

    def shell(self, redirect: bool = True) -> str:
        """The chain as one shell line: a failed sync does not stop the brief (it says how
        stale its data is); output appended to the log when `redirect`."""
        tail = f" >> {shlex.quote(str(self.log))} 2>&1" if redirect else ""
        steps = [shlex.join(argv) + tail for argv in self.commands]
        return f"PIXIU_HOME={shlex.quote(str(self.home))} " + f"; PIXIU_HOME={shlex.quote(str(self.home))} ".join(steps)


def pixiu_executable() -> str:
    """The installed `pixiu` of this interpreter (a scheduler's PATH is not the user's)."""
    beside = Path(sys.executable).with_name("pixiu")
    return str(beside) if beside.exists() else (sys.argv[0] if os.path.isabs(sys.argv[0]) else "pixiu")


def _shifts(zone: tzinfo, year: int) -> bool:
    offsets = {datetime(year, month, 1, 12, tzinfo=zone).utcoffset() for month in (1, 4, 7, 10)}
    return len(offsets) > 1


def schedule(now: datetime, at: time, home: Path, zone: tzinfo | None = None, source: str = "baostock") -> Schedule:
    today = now.astimezone(SHANGHAI).date()
    moment = datetime.combine(today, at, SHANGHAI)
    local = moment.astimezone(zone) if zone is not None else moment.astimezone()
    name = getattr(zone, "key", None) or local.tzname() or "本机时区"
    pixiu = pixiu_executable()
    commands = (
        (pixiu, "data", "sync", "--source", source, "--if-trading-day"),
        (pixiu, "brief", "--push", "--if-trading-day"),
    )
    shifts = _shifts(zone, today.year) if zone is not None else False
    return Schedule(at, local, name, shifts, commands, source, home, home / "schedule.log")


def local_day_shift(s: Schedule) -> int:
    """How many days the machine's date differs from Beijing's at the scheduled moment."""
    beijing = s.local.astimezone(SHANGHAI).date()
    return (s.local.date() - beijing) // timedelta(days=1)
