"""pixiu data / watch / chart as a user runs them, against a real SQLite file."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.helpers import FAKE_BAOSTOCK_PRELUDE, pixiu_for_result

MARKET = Path(__file__).resolve().parents[1] / "fixtures" / "market"


def pixiu(env, *args):
    return pixiu_for_result(env, *args)


@pytest.mark.slow
def test_import_status_bars_actions(offline_env):
    done = pixiu(offline_env, "data", "import", str(MARKET / "000333.csv"), "--symbol", "000333", "--name", "美的集团")
    assert done.returncode == 0, done.stderr
    assert "2380 条日线" in done.stdout and "成交量单位 股" in done.stdout
    assert "疑似除权除息：000333 2016-05-06" in done.stdout  # no actions given yet: the −36% open is flagged
    done = pixiu(
        offline_env,
        "data",
        "import",
        str(MARKET / "000333.csv"),
        "--symbol",
        "000333",
        "--actions",
        str(MARKET / "000333_actions.csv"),
    )
    assert done.returncode == 0 and "疑似除权除息" not in done.stdout and "除权除息 1 条" in done.stdout

    status = json.loads(pixiu(offline_env, "data", "status", "--json").stdout)
    assert [(s["symbol"], s["name"], s["rows"], s["first"], s["last"], s["source"]) for s in status] == [
        ("000333", "美的集团", 2380, "2015-06-01", "2025-05-30", "csv")
    ]
    assert status[0]["stale"] is True and status[0]["stale_trading_days"] > 300
    # the fixture's actions file holds only 2016: the later ex-dividend opens are named, one a year
    assert status[0]["suspected_missing_actions"] == 8
    table = pixiu(offline_env, "data", "status")
    assert "000333\t美的集团\t2380" in table.stdout and "过期" in table.stdout
    assert "疑似缺少除权记录（8 处）" in table.stdout
    assert "证券列表：内置 5,448 只股票，截至 2025-11-07" in table.stdout
    assert "交易日历：1990-12-19 至 2026-12-31" in table.stdout

    bars = json.loads(
        pixiu(
            offline_env,
            "data",
            "bars",
            "000333",
            "--adjust",
            "qfq",
            "--from",
            "2016-05-05",
            "--to",
            "2016-05-06",
            "--json",
        ).stdout
    )
    assert [b["date"] for b in bars] == ["2016-05-05", "2016-05-06"]
    assert set(bars[0]) >= {"date", "open", "high", "low", "close", "volume"}
    assert bars[0]["close"] == 21.1933 and bars[1]["close"] == 20.35
    raw = json.loads(
        pixiu(offline_env, "data", "bars", "000333", "--from", "2016-05-05", "--to", "2016-05-05", "--json").stdout
    )
    assert raw[0]["close"] == 32.99

    actions = json.loads(pixiu(offline_env, "data", "actions", "000333", "--json").stdout)
    assert [(a["ex_date"], a["cash_per_share"], a["shares_per_share"], a["source"]) for a in actions] == [
        ("2016-05-06", 1.2, 0.5, "import")
    ]


@pytest.mark.slow
def test_bad_input_is_one_line_and_changes_nothing(offline_env, pixiu_home, tmp_path):
    assert pixiu(offline_env, "data", "import", str(MARKET / "000002.csv"), "--symbol", "000002").returncode == 0
    bad = tmp_path / "bad.csv"
    bad.write_text("date,open,high,low,close,volume\n2025-06-03,10,11,9,10,100\n2025-06-04,10,11,9,,100\n")
    for args, message in [
        (("data", "import", str(bad), "--symbol", "000002"), "第 3 行：收盘价"),
        (("data", "import", str(tmp_path / "missing.csv"), "--symbol", "000002"), "找不到文件"),
        (("data", "import", str(MARKET / "000002.csv"), "--symbol", "2"), "6 位数字"),
        (("data", "import", str(MARKET / "000002.csv"), "--symbol", "000002", "--adjusted", "qfq"), "需要 --actions"),
        (("data", "import", str(MARKET / "000002.csv"), "--symbol", "000002", "--adjusted", "xx"), "--adjusted 只能是"),
        (("data", "bars", "000002", "--adjust", "abc"), "--adjust 只能是"),
        (("data", "bars", "000002", "--from", "2016-02-30"), "不是有效日期"),
        (("data", "bars", "600000"), "没有 600000"),
        (("watch", "remove", "600000"), "不在自选中"),
        (("chart", "600000"), "没有 600000 的行情数据"),
    ]:
        done = pixiu(offline_env, *args)
        assert done.returncode == 1, args
        assert message in done.stderr and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    db = sqlite3.connect(pixiu_home / "pixiu.db")
    assert db.execute("select count(*), max(date) from market_bars").fetchone() == (2295, "2025-05-30")


@pytest.mark.slow
def test_watch_list_and_sync_failure_keeps_data(offline_env):
    assert (
        pixiu(
            offline_env, "data", "import", str(MARKET / "000002.csv"), "--symbol", "000002", "--name", "万科A"
        ).returncode
        == 0
    )
    assert "已加入自选：000002" in pixiu(offline_env, "watch", "add", "000002").stdout
    assert "已在自选中" in pixiu(offline_env, "watch", "add", "０００００２").stdout  # full-width digits: same code
    listed = json.loads(pixiu(offline_env, "watch", "list", "--json").stdout)
    assert [(w["symbol"], w["name"]) for w in listed] == [("000002", "万科A")]
    # No baostock installed in the test environment: the sync of the watch list fails in one line.
    done = pixiu(offline_env, "data", "sync", "--source", "baostock")
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert "数据源 baostock 同步失败" in done.stderr and "已保留本地数据" in done.stderr
    status = json.loads(pixiu(offline_env, "data", "status", "--json").stdout)[0]
    assert status["rows"] == 2295 and status["stale"] is True and "baostock" in status["last_error"]
    assert pixiu(offline_env, "data", "sync", "--source", "yahoo").stderr.count("只能是") == 1
    assert "已移出自选" in pixiu(offline_env, "watch", "remove", "000002").stdout
    assert json.loads(pixiu(offline_env, "watch", "list", "--json").stdout) == []


@pytest.mark.slow
def test_chart_draws_adjusted_close_with_cost_line(offline_env):
    assert pixiu(offline_env, "import", str(MARKET / "midea_holding.json")).returncode == 0
    assert (
        pixiu(
            offline_env,
            "data",
            "import",
            str(MARKET / "000333.csv"),
            "--symbol",
            "000333",
            "--name",
            "美的集团",
            "--actions",
            str(MARKET / "000333_actions.csv"),
        ).returncode
        == 0
    )
    done = pixiu(offline_env, "chart", "000333", "--days", "120")
    assert done.returncode == 0, done.stderr
    assert "000333 美的集团 · 2024-11-29 至 2025-05-30 · 收盘 79.06 · 成本 60.50" in done.stdout
    assert "MA20" in done.stdout and "MA60" in done.stdout and "\x1b[" not in done.stdout  # piped: no colour


FAKE_BAOSTOCK = (
    FAKE_BAOSTOCK_PRELUDE
    + """def query_history_k_data_plus(code, fields, start_date, end_date, frequency, adjustflag):
    assert adjustflag == "3" and frequency == "d"
    rows = []
    with open(os.environ["FAKE_BAOSTOCK_CSV"]) as handle:
        for r in csv.DictReader(handle):
            if start_date <= r["datetime"] <= end_date:
                rows.append([r["datetime"], r["open"], r["high"], r["low"], r["close"], r["volume"], "", "1", "0"])
    return ResultData(fields.split(","), rows)

def query_adjust_factor(code, start_date, end_date):
    return ResultData(["code", "dividOperateDate", "foreAdjustFactor", "backAdjustFactor", "adjustFactor"], [])

def query_dividend_data(code, year, yearType):
    rows = [[code, "2016-05-06", "1.2", "", "0.5"]] if year == "2016" else []
    return ResultData(["code", "dividOperateDate", "dividCashPsBeforeTax", "dividStocksPs", "dividReserveToStockPs"], rows)

def query_trade_dates(start_date, end_date):
    return ResultData(["calendar_date", "is_trading_day"], [])

def query_stock_basic():
    return ResultData(["code", "code_name", "ipoDate", "outDate", "type", "status"],
                      [["sz.000333", "美的集团", "2013-09-18", "", "1", "1"]])
"""
)


@pytest.mark.slow
def test_sync_through_the_baostock_extra_end_to_end(offline_env, tmp_path):
    """The real `pixiu data sync` process with a stand-in baostock package on its path:
    a first sync from --since, then an incremental one that fetches nothing new."""
    (tmp_path / "fake" / "baostock").mkdir(parents=True)
    (tmp_path / "fake" / "baostock" / "__init__.py").write_text(FAKE_BAOSTOCK, encoding="utf-8")
    env = dict(offline_env, PYTHONPATH=str(tmp_path / "fake"), FAKE_BAOSTOCK_CSV=str(MARKET / "000333.csv"))
    done = pixiu(env, "data", "sync", "000333", "--since", "2016-01-04")
    assert done.returncode == 0, done.stderr
    expected = sum(1 for line in (MARKET / "000333.csv").read_text().splitlines()[1:] if line[:10] >= "2016-01-04")
    assert f"000333：新增 {expected} 条（2016-01-04 至 2025-05-30）" in done.stdout
    status = json.loads(pixiu(env, "data", "status", "--json").stdout)[0]
    assert (status["name"], status["source"], status["rows"], status["last_error"]) == (
        "美的集团",
        "baostock",
        expected,
        None,
    )
    actions = json.loads(pixiu(env, "data", "actions", "000333", "--json").stdout)
    assert [(a["ex_date"], a["cash_per_share"], a["shares_per_share"], a["source"]) for a in actions] == [
        ("2016-05-06", 1.2, 0.5, "baostock")
    ]
    bars = json.loads(
        pixiu(
            env, "data", "bars", "000333", "--adjust", "qfq", "--from", "2016-05-05", "--to", "2016-05-06", "--json"
        ).stdout
    )
    assert bars[0]["close"] == 21.1933  # adjusted with the synced dividend
    again = pixiu(env, "data", "sync", "000333")
    assert again.returncode == 0 and "000333：新增 0 条" in again.stdout  # incremental: after 2025-05-30
