"""`pixiu data sync` with no codes, the real process over a stand-in baostock package: the
holdings, the watch list and the three index benchmarks, with 上证指数 (sh.000001) and
平安银行 (sz.000001) kept apart; a dropped connection is one line and loses nothing."""

from __future__ import annotations

import json
import sqlite3

import pytest

from tests.helpers import MARKET_FIXTURES, fake_baostock_env, pixiu, pixiu_ok

# The histories stand in for the indexes (none is shipped): what is checked is which code
# each series is asked for and stored under.
FILES = {
    "sz.000333": MARKET_FIXTURES / "000333.csv",
    "sz.000001": MARKET_FIXTURES / "000001.csv",
    "sh.000300": MARKET_FIXTURES / "000002.csv",
    "sh.000001": MARKET_FIXTURES / "000333.csv",
    "sz.399006": MARKET_FIXTURES / "000002.csv",
}


def _rows(path, since: str) -> int:
    return sum(1 for line in path.read_text().splitlines()[1:] if line[:10] >= since)


def _closes(db, symbol: str) -> dict[str, float]:
    return dict(db.execute("select date, close from market_bars where symbol = ?", [symbol]).fetchall())


@pytest.mark.slow
def test_default_sync_fetches_benchmarks_apart_from_the_stock_with_the_same_digits(offline_env, tmp_path, pixiu_home):
    env = fake_baostock_env(dict(offline_env, PIXIU_NOW="2025-06-03T16:00"), tmp_path, FILES)
    pixiu_ok(env, "watch", "add", "000001")  # 平安银行
    pixiu_ok(env, "import", str(MARKET_FIXTURES / "midea_holding.json"))  # 000333 and 000002 (not served)
    done = pixiu(env, "data", "sync")
    out = done.stdout.decode()
    assert done.returncode == 0, done.stderr.decode()
    since = "2015-06-03"  # ten years before the pinned day
    assert f"000333：新增 {_rows(MARKET_FIXTURES / '000333.csv', since)} 条" in out
    assert f"沪深300（sh000300）：新增 {_rows(MARKET_FIXTURES / '000002.csv', since)} 条" in out
    assert "上证指数（sh000001）：新增" in out and "创业板指（sz399006）：新增" in out
    db = sqlite3.connect(pixiu_home / "pixiu.db")
    bank, index = _closes(db, "000001"), _closes(db, "sh000001")
    assert bank["2016-06-15"] == 10.44  # 平安银行's own close (its 2016 ex-rights eve)
    assert index["2016-06-15"] != bank["2016-06-15"]  # the index series is another one
    # Only the stocks get profiles and signals; an index is the yardstick.
    signalled = {r[0] for r in db.execute("select distinct symbol from signals")}
    assert signalled == {"000001", "000333"}
    status = {s["symbol"]: s for s in json.loads(pixiu_ok(env, "data", "status", "--json"))}
    assert status["sh000300"]["name"] == "沪深300" and status["sz399006"]["name"] == "创业板指"
    shown = json.loads(
        pixiu_ok(env, "data", "bars", "SH000001", "--from", "2016-06-15", "--to", "2016-06-15", "--json")
    )
    assert [b["close"] for b in shown] == [index["2016-06-15"]]  # the index's bars, not the bank's


@pytest.mark.slow
def test_dropped_connection_is_one_line_and_keeps_what_was_fetched(offline_env, tmp_path, pixiu_home):
    env = fake_baostock_env(dict(offline_env, PIXIU_NOW="2025-06-03T16:00"), tmp_path, FILES, down="sh.000001")
    pixiu_ok(env, "watch", "add", "000333")
    done = pixiu(env, "data", "sync")
    err = done.stderr.decode()
    assert done.returncode == 1 and err.count("\n") == 1, err
    assert (
        "数据源 baostock 同步失败（4 只中的 2 只）" in err
        and "其余新增的" in err
        and "ConnectionResetError" in err
        and "已保留本地数据" in err
    )
    assert "Traceback" not in err
    db = sqlite3.connect(pixiu_home / "pixiu.db")
    kept = dict(db.execute("select symbol, count(*) from market_bars group by symbol").fetchall())
    assert set(kept) == {"000333", "sh000300"}  # fetched before the failure: stored
    failed = dict(db.execute("select symbol, last_error from market_series where stale = 1").fetchall())
    assert set(failed) == {"sh000001", "sz399006"}
    again = pixiu(fake_baostock_env(env, tmp_path, FILES), "data", "sync")  # the connection is back
    assert again.returncode == 0 and "000333：新增 0 条" in again.stdout.decode()
    assert "上证指数（sh000001）：新增" in again.stdout.decode()
