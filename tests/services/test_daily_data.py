"""Daily data without effort, in process: which series are a session behind after the close
(on the real calendar), excess return over 沪深300 in profiles and the track record (checked
by hand on the real histories), `pixiu signal`, the [market] auto_sync setting and PIXIU_NOW."""

from __future__ import annotations

import csv
import json
from datetime import datetime

import pytest

from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.bars import CSI300, SeriesWrite
from pixiu_cli.market.calendar import SHANGHAI
from pixiu_cli.market.csv_source import parse_bars, read_text
from pixiu_cli.market.handle import Market
from pixiu_cli.market.service import stale_market, sync_targets
from pixiu_cli.market.store import MarketStore
from tests.helpers import MARKET_FIXTURES, clean_env, load, pixiu_in_process

# 万科A's real bars stand in for 沪深300's: the shipped histories hold no index, and what is
# checked is that the same window and sessions are used, not the index's level.
STAND_IN = MARKET_FIXTURES / "000002.csv"


def _beijing(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=SHANGHAI)


def _closes(path) -> dict[str, float]:
    with path.open(encoding="utf-8") as rows:
        return {row["datetime"][:10]: float(row["close"]) for row in csv.DictReader(rows)}


def _store_stand_in(db) -> None:
    bars = [b for b in parse_bars(read_text(STAND_IN), "auto").bars if b.trade_status]
    MarketStore(db).write_series(SeriesWrite(CSI300.key, bars, source="csv", at="2026-11-30T16:00:00+08:00"))


@pytest.fixture
def db(tmp_path):
    database = open_database(tmp_path / "pixiu.db")
    yield database
    database.close()


@pytest.fixture
def home_env(pixiu_home):
    return clean_env(pixiu_home)


def test_default_sync_covers_holdings_watch_list_and_the_three_benchmarks(db):
    MarketStore(db).watch("000001", "2026-11-30T16:00:00+08:00")  # 平安银行, the stock
    assert sync_targets(Market(db), None) == ["000001", "sh000300", "sh000001", "sz399006"]
    assert sync_targets(Market(db), ["600519"]) == ["600519"]  # codes given: only those


def test_stale_after_the_close_counts_sessions_on_the_real_calendar(db):
    load(db, "000333")  # last bar Friday 2025-05-30
    MarketStore(db).watch("000333", "2025-05-30T16:00:00+08:00")
    # 2025-06-02 (Monday) was the Dragon Boat Festival: after Tuesday's close one session is missing.
    stale = stale_market(Market(db), _beijing("2025-06-03T15:30"))
    assert stale is not None and (stale.session, stale.symbols, stale.behind) == ("2025-06-03", ("000333",), 1)
    assert stale_market(Market(db), _beijing("2025-06-03T14:59")) is None  # before the close
    assert stale_market(Market(db), _beijing("2025-06-02T16:00")) is None  # a holiday: no session closed today
    assert stale_market(Market(db), _beijing("2025-05-31T16:00")) is None  # Saturday
    assert stale_market(Market(db), _beijing("2025-05-30T15:01")) is None  # today's bar is stored
    assert stale_market(Market(db), _beijing("2027-01-04T16:00")) is None  # past the calendar: not guessed
    assert stale_market(Market(db), _beijing("2025-06-10T16:00")).behind == 6


def test_stale_leaves_out_series_never_stored(db):
    MarketStore(db).watch("600519", "2025-05-30T16:00:00+08:00")  # watched, no bars: no daily nagging
    assert stale_market(Market(db), _beijing("2025-06-03T15:30")) is None


def _profile(env) -> list[dict]:
    done = pixiu_in_process(env, "profile", "000333", "--json", text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_profile_excess_over_csi300_same_window_checked_by_hand(home_env, pixiu_home):
    db = open_database(pixiu_home / "pixiu.db")
    load(db, "000333")
    before = _profile(home_env)
    assert all("excess_vs_csi300" not in row for row in before)  # no 沪深300 bars: nothing said
    table = pixiu_in_process(home_env, "profile", "000333", text=True).stdout
    assert "超额沪深300" not in table
    _store_stand_in(db)
    db.close()
    rows = _profile(home_env)
    # By hand from the CSV: the stand-in's close on the session before the window's first
    # day to its close on the window's last day, annualised over the window's sessions.
    closes = _closes(STAND_IN)
    days = sorted(closes)
    for row in rows:
        inside = [d for d in days if row["window_start"] <= d <= row["window_end"]]
        before_start = max(d for d in days if d < row["window_start"])
        index_annual = (closes[row["window_end"]] / closes[before_start]) ** (243 / len(inside)) - 1
        assert row["excess_vs_csi300"] == pytest.approx(row["annual_return"] - index_annual, abs=1e-12)
    hold = next(r for r in rows if r["strategy"] == "buy_and_hold")
    # Worked by hand: the window 2022-05-31 … 2025-05-30 holds 728 sessions; the stand-in
    # closed 17.82 on 2022-05-30 and 6.64 on 2025-05-30; (6.64 / 17.82) ** (243 / 728) − 1 is
    # −28.07% a year, so the excess is buy-and-hold's annual return + 28.07 points.
    assert (hold["window_start"], hold["window_end"]) == ("2022-05-31", "2025-05-30")
    assert hold["excess_vs_csi300"] - hold["annual_return"] == pytest.approx(0.2807, abs=5e-5)
    table = pixiu_in_process(home_env, "profile", "000333", text=True).stdout
    assert "超额沪深300" in table and f"{hold['excess_vs_csi300']:+.1%}" in table


def test_track_excess_over_csi300_on_the_same_sessions(home_env, pixiu_home, tmp_path):
    document = {
        "decisions": [
            {"symbol": "000333", "side": "buy", "price": 60.0, "quantity": 100, "decided_at": "2024-09-02T10:00:00"}
        ]
    }
    (tmp_path / "decision.json").write_text(json.dumps(document), encoding="utf-8")
    assert pixiu_in_process(home_env, "import", str(tmp_path / "decision.json")).returncode == 0
    db = open_database(pixiu_home / "pixiu.db")
    load(db, "000333")
    db.close()
    plain = pixiu_in_process(home_env, "track", text=True).stdout
    assert "对比沪深300" not in plain
    db = open_database(pixiu_home / "pixiu.db")
    _store_stand_in(db)
    db.close()
    row = json.loads(pixiu_in_process(home_env, "track", "--json", text=True).stdout)[0]
    stock, index = _closes(MARKET_FIXTURES / "000333.csv"), _closes(STAND_IN)
    days = sorted(d for d in stock if d >= "2024-09-02")
    for n in (5, 20):
        expected = (stock[days[n]] / 60.0 - 1) - (index[days[n]] / index[days[0]] - 1)
        assert row[f"vs_csi300_{n}d"] == pytest.approx(expected, abs=1e-12)
    assert "对比沪深300" in pixiu_in_process(home_env, "track", text=True).stdout


def test_signal_shows_each_holdings_fused_signal_and_components(home_env, pixiu_home):
    holding = {"symbol": "000333", "name": "美的集团", "shares": 1000, "cost": 60.5, "role": "core"}
    other = {"symbol": "000002", "name": "万科A", "shares": 100, "cost": 12.0, "role": "satellite"}
    path = pixiu_home / "holdings.json"
    path.write_text(json.dumps({"holdings": [holding, other]}), encoding="utf-8")
    assert pixiu_in_process(home_env, "import", str(path)).returncode == 0
    assert "无已存信号" in pixiu_in_process(home_env, "signal", text=True).stdout
    done = pixiu_in_process(
        home_env, "data", "import", str(MARKET_FIXTURES / "000333.csv"), "--symbol", "000333", text=True
    )
    assert done.returncode == 0, done.stderr
    db = open_database(pixiu_home / "pixiu.db")
    stored = db.execute("select score, direction, components, as_of from signals where symbol = '000333'").fetchone()
    db.close()
    listed = json.loads(pixiu_in_process(home_env, "signal", "--json", text=True).stdout)
    assert [v["symbol"] for v in listed] == ["000333", "000002"]  # every holding, in the store's order
    mine = listed[0]
    assert (mine["score"], mine["direction"], mine["components"], mine["as_of"]) == (
        stored[0],
        stored[1],
        json.loads(stored[2]),
        stored[3],
    )
    assert set(mine["components"]) == {"趋势", "动量", "波动", "回撤"}
    weights = {"趋势": 0.35, "动量": 0.35, "波动": 0.15, "回撤": 0.15}  # the fusion weights of docs/market.md
    assert mine["score"] == pytest.approx(sum(weights[k] * v for k, v in mine["components"].items()), abs=0.006)
    assert listed[1]["score"] is None and listed[1]["components"] == {}
    table = pixiu_in_process(home_env, "signal", "000333", text=True).stdout
    assert "趋势" in table and f"{mine['components']['趋势']:+.2f}" in table and mine["direction"] in table
    assert "000002" not in table  # the code given, not every holding
    unheld = json.loads(pixiu_in_process(home_env, "signal", "600519", "--json", text=True).stdout)
    assert unheld == [
        {"symbol": "600519", "name": "贵州茅台", "score": None, "direction": None, "components": {}, "as_of": None}
    ]  # named from the shipped security list; nothing stored is nothing shown
    bad = pixiu_in_process(home_env, "signal", "60051", text=True)
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1


def test_signal_without_holdings_or_codes_is_one_line(home_env):
    done = pixiu_in_process(home_env, "signal", text=True)
    assert done.returncode == 1 and "没有持仓" in done.stderr and done.stderr.count("\n") == 1


def test_auto_sync_setting_is_checked_like_the_other_tables(home_env, pixiu_home):
    assert pixiu_in_process(home_env, "config", "set", "market.auto_sync", "true").returncode == 0
    assert "auto_sync = true" in (pixiu_home / "config.toml").read_text(encoding="utf-8")
    for value, key in (("maybe", "market.auto_sync"), ("true", "market.autosync")):
        done = pixiu_in_process(home_env, "config", "set", key, value, text=True)
        assert done.returncode != 0 and done.stderr.count("\n") == 1 and "[market]" in done.stderr, done.stderr
    assert "auto_sync = true" in (pixiu_home / "config.toml").read_text(encoding="utf-8")  # nothing lost


def test_pinned_clock_is_checked(home_env):
    done = pixiu_in_process(dict(home_env, PIXIU_NOW="tomorrow"), "data", "status", text=True)
    assert done.returncode == 1 and "PIXIU_NOW" in done.stderr and done.stderr.count("\n") == 1
