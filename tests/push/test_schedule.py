"""`pixiu schedule` prints (never installs) what runs sync + brief + push after the close in
Beijing time, whatever the machine's zone; `--if-trading-day` makes the chain do nothing on
a day the exchanges are closed. The printed cron line, run as cron would, does the whole
chain on a trading day and nothing on a holiday (PIXIU_NOW pins the day)."""

from __future__ import annotations

import json
import subprocess
from datetime import datetime, time
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from pixiu_cli.brief.schedule import closed_day, local_day_shift, parse_at, schedule
from pixiu_cli.brief.views import calendar_line, closed_line, schedule_text
from pixiu_cli.kernel.clock import SHANGHAI
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.calendar import beyond_calendar
from pixiu_cli.market.trading_days import PUBLICATIONS
from tests.helpers import MARKET_FIXTURES, clean_env, fake_baostock_env, pixiu_in_process
from tests.push_receivers import Receiver

MONDAY = datetime(2026, 11, 30, 10, 0, tzinfo=SHANGHAI)


@pytest.mark.parametrize(
    ("moment", "said"),
    [
        (datetime(2026, 11, 28, 16, 0), "今天 2026-11-28（周六）休市"),
        (datetime(2026, 10, 1, 16, 0), "今天 2026-10-01（国庆节）休市"),
        (datetime(2026, 11, 30, 16, 0), None),
        (datetime(2027, 3, 1, 16, 0), None),  # past the shipped calendar: a weekday runs, and says why
    ],
)
def test_closed_days_come_from_the_calendar_in_beijing_time(moment, said):
    closed = closed_day(moment.replace(tzinfo=SHANGHAI))
    assert (closed_line(closed) if closed else None) == said


def test_a_weekday_past_the_calendar_is_run_with_a_note():
    note = calendar_line(beyond_calendar(datetime(2027, 3, 1, 16, 0, tzinfo=SHANGHAI)))
    assert note == "交易日历只到 2026-12-31，无法确认今天是否交易日，按交易日运行"
    # Friday 23:30 in Los Angeles is Saturday 15:30 in Beijing: closed, whatever the machine says
    los_angeles = datetime(2026, 11, 27, 23, 30, tzinfo=ZoneInfo("America/Los_Angeles"))
    assert closed_line(closed_day(los_angeles)) == "今天 2026-11-28（周六）休市"


@pytest.mark.parametrize(
    ("zone", "local", "shift", "shifts"),
    [
        ("Asia/Shanghai", "15:30", 0, False),
        ("Etc/UTC", "07:30", 0, False),  # UTC+8 → 07:30
        ("Europe/Berlin", "08:30", 0, True),  # CET (UTC+1) in November; CEST in summer
        ("America/Los_Angeles", "23:30", -1, True),  # PST (UTC−8): 07:30 UTC is 23:30 the day before
    ],
)
def test_the_same_moment_on_the_machines_clock(zone, local, shift, shifts):
    s = schedule(MONDAY, time(15, 30), Path("/home/u/.pixiu"), ZoneInfo(zone))
    assert (f"{s.local:%H:%M}", local_day_shift(s), s.shifts) == (local, shift, shifts)
    text = schedule_text(s)
    hour, minute = local.split(":")
    assert f"\n{int(minute)} {int(hour)} * * * PIXIU_HOME=/home/u/.pixiu " in text  # every day in local time
    assert "\nCRON_TZ=Asia/Shanghai\n30 15 * * 1-5 PIXIU_HOME=/home/u/.pixiu " in text
    assert "OnCalendar=Mon..Fri *-*-* 15:30:00 Asia/Shanghai" in text
    assert f"<key>Hour</key><integer>{int(hour)}</integer><key>Minute</key><integer>{int(minute)}</integer>" in text
    assert ("有夏令时" in text) == shifts
    assert "data sync --source baostock --if-trading-day >> /home/u/.pixiu/schedule.log 2>&1; " in text
    assert "brief --push --if-trading-day >> /home/u/.pixiu/schedule.log 2>&1" in text


@pytest.mark.parametrize(
    ("text", "said"), [("14:30", "在 15:00 收盘之前"), ("25:00", "应为 HH:MM"), ("3pm", "应为 HH:MM")]
)
def test_a_time_before_the_close_or_no_time_is_refused(text, said):
    with pytest.raises(RequestError, match=said):
        parse_at(text)
    assert parse_at("18:05") == time(18, 5)


def test_schedule_prints_and_changes_nothing(tmp_path):
    home = tmp_path / "home"
    env = clean_env(home, PIXIU_NOW="2026-11-30T10:00", TZ="America/Los_Angeles")
    done = pixiu_in_process(env, "schedule", "--at", "16:00", text=True)
    assert done.returncode == 0, done.stderr
    assert "\n0 16 * * 1-5 " in done.stdout and "\n0 0 * * * " in done.stdout  # 16:00 Beijing = 00:00 PST
    assert "还没有配置推送渠道" in done.stderr
    assert list(home.iterdir()) == []  # printed only: no unit, plist or database written
    bad = pixiu_in_process(env, "schedule", "--at", "09:30", text=True)
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1


@pytest.mark.parametrize("source", ["baostock", "akshare"])
def test_the_default_time_is_after_the_source_publishes_the_days_bars(tmp_path, source):
    env = clean_env(tmp_path / "home", PIXIU_NOW="2026-11-30T10:00", TZ="Asia/Shanghai")
    done = pixiu_in_process(env, "schedule", "--source", source, text=True)
    assert done.returncode == 0, done.stderr
    published = PUBLICATIONS[source].at
    minute, hour = done.stdout.split("\nCRON_TZ=Asia/Shanghai\n", 1)[1].split()[:2]
    assert time(int(hour), int(minute)) > published  # after it, so the sync gets the day's close
    assert f"pixiu data sync --source {source} --if-trading-day" in done.stdout
    assert f"{source} 发布当日日线：约 {published:%H:%M}" in done.stdout
    assert "早于" not in done.stderr


def test_an_explicit_time_before_the_publication_is_allowed_and_warned_about(tmp_path):
    env = clean_env(tmp_path / "home", PIXIU_NOW="2026-11-30T10:00", TZ="Asia/Shanghai")
    early = pixiu_in_process(env, "schedule", "--at", "15:30", text=True)
    assert early.returncode == 0 and "\n30 15 * * 1-5 " in early.stdout
    assert "--at 15:30 早于 baostock 发布当日日线的时间（约 17:30）" in early.stderr
    later = pixiu_in_process(env, "schedule", "--at", "15:45", "--source", "akshare", text=True)
    assert later.returncode == 0 and "早于" not in later.stderr


def _cron_command(env: dict) -> str:
    shown = pixiu_in_process(env, "schedule", text=True)
    assert shown.returncode == 0, shown.stderr
    line = next(x for x in shown.stdout.splitlines() if x.startswith("0 18 * * 1-5 "))
    return line.removeprefix("0 18 * * 1-5 ")


@pytest.mark.slow
def test_the_printed_cron_line_runs_the_chain_on_a_trading_day_and_nothing_on_a_holiday(
    offline_env, pixiu_home, tmp_path
):
    receiver = Receiver()
    try:
        (pixiu_home / "config.toml").write_text(receiver.config("webhook"), encoding="utf-8")
        (pixiu_home / "config.toml").chmod(0o600)
        holding = tmp_path / "holding.json"
        holding.write_text(
            json.dumps(
                {"holdings": [{"symbol": "000333", "name": "美的集团", "shares": 1000, "cost": 60.5, "role": "core"}]}
            ),
            "utf-8",
        )
        assert pixiu_in_process(offline_env, "import", str(holding)).returncode == 0
        served = {"sz.000333": MARKET_FIXTURES / "000333.csv"}
        holiday = fake_baostock_env(dict(offline_env, PIXIU_NOW="2025-10-01T15:30"), tmp_path, served)
        command = _cron_command(holiday)
        ran = subprocess.run(["/bin/sh", "-c", command], env=holiday, capture_output=True, timeout=300)
        assert ran.returncode == 0, ran.stderr
        log = (pixiu_home / "schedule.log").read_text(encoding="utf-8")
        assert log.count("今天 2025-10-01（国庆节、中秋节）休市：什么也不做（--if-trading-day）") == 2
        assert receiver.received == {}
        db = open_database(pixiu_home / "pixiu.db")
        try:
            assert db.execute("select (select count(*) from market_bars), (select count(*) from turns)").fetchone() == (
                0,
                0,
            )
        finally:
            db.close()

        trading = fake_baostock_env(dict(offline_env, PIXIU_NOW="2025-06-03T15:30"), tmp_path, served)
        ran = subprocess.run(["/bin/sh", "-c", _cron_command(trading)], env=trading, capture_output=True, timeout=300)
        assert ran.returncode == 0, (ran.stderr, (pixiu_home / "schedule.log").read_text(encoding="utf-8"))
        [pushed] = receiver.received["webhook"]
        assert pushed["kind"] == "brief" and pushed["as_of"] == "2025-05-30"  # the last bar the chain's sync fetched
        assert "000333 美的集团" in pushed["text"] and "结论：" in pushed["text"]
        db = open_database(pixiu_home / "pixiu.db")
        try:
            assert db.execute("select max(date) from market_bars where symbol = '000333'").fetchone() == ("2025-05-30",)
        finally:
            db.close()
    finally:
        receiver.close()
