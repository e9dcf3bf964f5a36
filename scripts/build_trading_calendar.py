"""Write data/calendar/xshg_trading_days.json: the A-share exchanges' weekday closures from
the first session (1990-12-19) to the last day the reference calendar knows, taken from
`exchange_calendars`' XSHG calendar. pixiu stores the closures, not the sessions: every
weekday not listed is a trading day, every weekend day is closed (XSHG has no weekend
session), and days after `last` are unknown.

Holiday names are kept from the file being replaced (exchange_calendars does not name
XSHG's closures); a closure without a name is shown as 节假日休市.

    python scripts/build_trading_calendar.py      (needs exchange_calendars)
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path

import exchange_calendars

OUT = Path(__file__).resolve().parent.parent / "data" / "calendar" / "xshg_trading_days.json"
FIRST, LAST = "1990-12-19", "2026-12-31"  # XSHG's first session; the last day its holiday rules cover


def closed_weekdays(sessions: set[date], first: date, last: date) -> list[date]:
    out, day = [], first
    while day <= last:
        if day.weekday() < 5 and day not in sessions:
            out.append(day)
        day += timedelta(days=1)
    return out


def main() -> None:
    calendar = exchange_calendars.get_calendar("XSHG", start=FIRST, end=LAST)
    sessions = {ts.date() for ts in calendar.sessions}
    if any(d.weekday() >= 5 for d in sessions):
        raise SystemExit("XSHG lists a weekend session: the closures-only format cannot hold it")
    first, last = min(sessions), max(sessions)
    closed = closed_weekdays(sessions, first, last)
    old_names = json.loads(OUT.read_text(encoding="utf-8")).get("names", {}) if OUT.exists() else {}
    names = {d.isoformat(): old_names[d.isoformat()] for d in closed if d.isoformat() in old_names}
    document = {
        "description": "Weekdays on which the Shanghai, Shenzhen and Beijing stock exchanges were or will be "
        "closed, first..last. Every other weekday in that range is a trading day; weekends are always closed "
        "(make-up working weekends are not trading days). Past `last` the calendar does not know.",
        "timezone": "Asia/Shanghai",
        "source": f"exchange_calendars {exchange_calendars.__version__}, calendar XSHG",
        "first": first.isoformat(),
        "last": last.isoformat(),
        "sessions": len(sessions),
        "closed_weekdays": [d.isoformat() for d in closed],
        "names": names,
    }
    OUT.write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{len(sessions)} sessions {first}..{last}, {len(closed)} weekday closures → {OUT}")


if __name__ == "__main__":
    main()
