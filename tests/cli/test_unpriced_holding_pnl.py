"""A holding with no stored close is valued at its cost: it has no unrealised or holding P&L
(None in the data, "—" in the table), and the totals say they leave it out — never a "loss"
of minus what its partial sale realised."""

from __future__ import annotations

import json

import pytest

from tests.helpers import clean_env, in_process_ok

BARS = "tests/fixtures/market/000333.csv"


@pytest.fixture
def env(pixiu_home):
    env = clean_env(pixiu_home, PIXIU_NOW="2025-08-20T16:00")
    in_process_ok(env, "data", "import", BARS, "--symbol", "000333")
    in_process_ok(env, "trade", "buy", "000333", "100", "70", "--date", "2025-03-03", "--fee", "0")
    # 600000 has no bars: 1,000 bought at 10, 500 sold at 12 realise +1,000; the rest is
    # valued at the diluted cost 8.00, which is no loss of −1,000 against the average cost
    in_process_ok(env, "trade", "buy", "600000", "1000", "10", "--date", "2025-03-03", "--fee", "0")
    in_process_ok(env, "trade", "sell", "600000", "500", "12", "--date", "2025-04-01", "--fee", "0")
    in_process_ok(env, "cash", "set", "10000")
    return env


def test_the_record_has_no_unrealised_or_holding_pnl_for_a_holding_without_a_close(env):
    record = json.loads(in_process_ok(env, "holdings", "--json"))
    unpriced = next(h for h in record["holdings"] if h["symbol"] == "600000")
    midea = next(h for h in record["holdings"] if h["symbol"] == "000333")
    assert (unpriced["priced"], unpriced["value"], unpriced["realised_pnl"]) == (False, 4000.0, 1000.0)
    assert [unpriced[k] for k in ("unrealised_pnl", "unrealised_pct", "holding_pnl", "total_pnl")] == [None] * 4
    assert record["unpriced"] == 1
    assert record["unrealised_pnl"] == midea["unrealised_pnl"]  # the priced one alone


def test_the_table_and_the_context_block_show_no_pnl_and_say_the_total_leaves_it_out(env):
    record = json.loads(in_process_ok(env, "holdings", "--json"))
    total = f"{record['unrealised_pnl']:+,.2f}"
    table = in_process_ok(env, "holdings")
    row = next(line for line in table.splitlines() if line.startswith("600000"))
    assert row.split("\t")[5:8] == ["—", "+1,000.00", "—"]
    assert f"浮动盈亏合计 {total}（按持仓均价，不含 1 只无行情的持仓）" in table
    block = in_process_ok(env, "context", "我的持仓怎么样", "--pretty")
    assert f"浮动盈亏合计 {total}（不含 1 只无行情的持仓）" in block
    assert "-1,000.00" not in block and "-1,000.00" not in table
