"""The one wall clock. Every "now" pixiu uses — the block's 当前时间, the session a command
runs in, the stamps of notes, trades, turns and briefs — comes from a `Clock` that
`app.clock_of` builds once from the settings: the machine's time in Beijing, or the moment
`PIXIU_NOW` pins (ISO 8601; naive is Beijing time), so a test can run at a chosen session.

`machine_seconds` is the one exception, and deliberately not pinned: it is compared with
times others wrote on the machine's clock (a file's modification time, an HTTP Retry-After
date, the offline provider's cache expiry), which a pinned moment would only confuse.
Durations and deadlines use time.monotonic, which is no wall clock.

Nothing else in the product reads the time (tests/test_one_clock.py scans for it)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
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
