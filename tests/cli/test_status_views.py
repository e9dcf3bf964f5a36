"""What the status views say about data pixiu has: no `日期未知` where the date is the
account's, no `null` name for a stock the shipped list knows, and the same suspected
ex-rights gaps `data status` counts as the import warned of."""

from __future__ import annotations

import json

from tests.helpers import MARKET_FIXTURES, clean_env, in_process_ok, pixiu_in_process


def test_data_status_names_the_stock_and_counts_the_gap_the_import_warned_of(tmp_path):
    env = clean_env(tmp_path / "home", PIXIU_NOW="2025-08-20T16:00:00")
    done = pixiu_in_process(env, "data", "import", str(MARKET_FIXTURES / "000001.csv"), "--symbol", "000001", text=True)
    # 10派1.53送2 on 2016-06-16 without its actions file: 10.44 → open 8.57, past the 10% limit
    assert done.returncode == 0 and "疑似除权除息：000001 2016-06-16" in done.stdout
    (status,) = json.loads(in_process_ok(env, "data", "status", "--json"))
    assert (status["name"], status["suspected_missing_actions"]) == ("平安银行", 1)


def test_the_demo_holdings_have_no_unknown_dates(tmp_path):
    env = clean_env(tmp_path / "home", PIXIU_NOW="2025-08-20T16:00:00")
    table = in_process_ok(env, "holdings", "--demo")
    assert "600519 贵州茅台" in table and "日期未知" not in table
