"""A holding line in the context block is dated twice: the position by its last ledger event
(a fill, a stated lot, a dividend or bonus the ledger applied from market data), and its
figures by the close they use — never by when a row was last written, nor `日期未知` when
the ledger knows the day."""

from __future__ import annotations

import pytest

from tests.helpers import clean_env, in_process_ok

BARS = "tests/fixtures/market/000333.csv"  # the last bar: 2025-05-30


def holding_line(env, symbol: str) -> str:
    block = in_process_ok(env, "context", "我的持仓怎么样", "--pretty")
    return next(line for line in block.split("\\n") if line.startswith("- [") and f"] {symbol} " in line)


@pytest.fixture
def env(pixiu_home):
    return clean_env(pixiu_home, PIXIU_NOW="2025-08-20T16:00")


def test_a_holding_is_dated_by_its_last_fill_and_its_close(env):
    in_process_ok(env, "data", "import", BARS, "--symbol", "000333")
    in_process_ok(env, "trade", "buy", "000333", "100", "70", "--date", "2025-03-03")
    in_process_ok(env, "trade", "buy", "000333", "100", "72", "--date", "2025-03-10")
    # recorded on 2025-08-20: the day it was told is not the position's day
    assert holding_line(env, "000333").startswith("- [事实 · 持仓截至 2025-03-10 · 收盘价 2025-05-30] 000333 美的集团")


def test_a_dividend_the_ledger_applied_dates_the_position(env, tmp_path):
    actions = tmp_path / "actions.csv"
    actions.write_text("ex_date,cash_per_share,shares_per_share\n2025-04-15,0.3,0\n", encoding="utf-8")
    in_process_ok(env, "data", "import", BARS, "--symbol", "000333", "--actions", str(actions))
    in_process_ok(env, "trade", "buy", "000333", "100", "70", "--date", "2025-03-03")
    assert holding_line(env, "000333").startswith("- [事实 · 持仓截至 2025-04-15 · 收盘价 2025-05-30] 000333")


def test_a_holding_without_bars_has_no_close_date(env):
    in_process_ok(env, "data", "import", BARS, "--symbol", "000333")
    in_process_ok(env, "trade", "buy", "000333", "100", "70", "--date", "2025-03-03")
    in_process_ok(env, "trade", "buy", "600000", "1000", "10", "--date", "2025-02-14")
    assert holding_line(env, "600000").startswith("- [事实 · 持仓截至 2025-02-14] 600000 浦发银行")
