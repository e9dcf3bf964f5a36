"""Past the shipped trading calendar's last day nobody knows which weekdays were sessions: a
close's staleness is counted up to that day and said as a floor (`至少 N 个交易日`) in every
surface that says it — the holdings, the context block (the holding's close and a signal's
freshness), the brief and `data status` — never as an exact count."""

from __future__ import annotations

import re
from datetime import date

import pytest

from pixiu_cli.market.trading_days import calendar_end, sessions_between
from tests.helpers import clean_env, in_process_ok

BARS = "tests/fixtures/market/000333.csv"
LAST_BAR = date(2025, 5, 30)  # the fixture's last bar


@pytest.fixture
def env(pixiu_home):
    env = clean_env(pixiu_home, PIXIU_NOW="2027-01-27T16:00")  # past the calendar's end (2026-12-31)
    in_process_ok(env, "data", "import", BARS, "--symbol", "000333")
    in_process_ok(env, "trade", "buy", "000333", "100", "70", "--date", "2025-03-03")
    return env


def test_staleness_past_the_calendar_is_a_floor_everywhere_it_is_said(env):
    assert calendar_end() < date(2027, 1, 27)
    floor = sessions_between(LAST_BAR, calendar_end())  # the sessions the calendar can vouch for
    holdings = in_process_ok(env, "holdings")
    assert f"79.06（2025-05-30，过期至少 {floor} 个交易日）" in holdings
    block = in_process_ok(env, "context", "000333怎么样", "--pretty")
    assert f"收盘 79.06（2025-05-30 不复权，已过期至少 {floor} 个交易日）" in block
    signal = next(line for line in block.split("\\n") if "融合信号" in line)
    assert re.search(r"（已过期至少 \d+ 个交易日）", signal)
    brief = in_process_ok(env, "brief")
    assert f"截至 2025-05-30 收盘（行情已过期至少 {floor} 个交易日；交易日历只到 {calendar_end()}）" in brief
    assert f"（2025-05-30，落后至少 {floor} 个交易日）" in brief
    status = in_process_ok(env, "data", "status")
    assert f"过期至少 {floor} 个交易日（交易日历只到 {calendar_end()}，之后未计）" in status
    for said in (holdings, block, brief, status):
        assert not re.search(r"(过期|落后) \d+ 个交易日", said)  # no exact count past the end


def test_within_the_calendar_the_count_is_exact(pixiu_home):
    env = clean_env(pixiu_home, PIXIU_NOW="2025-08-20T16:00")
    in_process_ok(env, "data", "import", BARS, "--symbol", "000333")
    in_process_ok(env, "trade", "buy", "000333", "100", "70", "--date", "2025-03-03")
    exact = sessions_between(LAST_BAR, date(2025, 8, 20))
    assert f"79.06（2025-05-30，过期 {exact} 个交易日）" in in_process_ok(env, "holdings")
    assert "至少" not in in_process_ok(env, "context", "000333怎么样", "--pretty")
