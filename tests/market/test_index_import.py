"""Index benchmarks from files, offline: `data import FILE --symbol sh000300` (or 000300.SH,
沪深300 …) stores an index under the key a sync uses, with no security-master row, no
actions and no profile; a bare code an index shares with Shenzhen's stock codes is never
taken for either in silence; and excess return over 沪深300 then works without a network
(checked by hand on the real histories)."""

from __future__ import annotations

import csv
import json

import pytest

from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.analytics.metrics import BenchmarkCloses
from pixiu_cli.market.analytics.store import AnalyticsStore
from pixiu_cli.market.data import MarketData
from pixiu_cli.market.handle import Market
from pixiu_cli.market.importer import import_symbol, spelling_in_name
from pixiu_cli.market.store import MarketStore, SecurityMaster
from pixiu_cli.market.views import bare_code_line
from tests.helpers import MARKET_FIXTURES, clean_env, pixiu_in_process

SCALE = 200  # 万科A's real closes × 200 stand in for an index's level (the shipped histories hold no index)


def _tdx_index_file(tmp_path, name="SH#000300.txt"):
    """万科A's real bars (tests/fixtures/market/000002.csv) written as a 通达信 index export:
    GBK, a title naming 000300, YYYY/MM/DD dates, prices × 200 to the fen."""
    lines = ["000300 沪深300 日线 不复权", "日期\t开盘\t最高\t最低\t收盘\t成交量\t成交额"]
    with (MARKET_FIXTURES / "000002.csv").open(encoding="utf-8") as rows:
        for r in csv.DictReader(rows):
            prices = [f"{float(r[k]) * SCALE:.2f}" for k in ("open", "high", "low", "close")]
            lines.append("\t".join([r["datetime"][:10].replace("-", "/"), *prices, r["volume"], "0"]))
    lines.append("数据来源:通达信")
    path = tmp_path / name
    path.write_bytes("\r\n".join(lines).encode("gbk"))
    return path


@pytest.fixture
def env(pixiu_home):
    return clean_env(pixiu_home)


@pytest.mark.parametrize(
    "spelling, key",
    [
        ("sh000300", "sh000300"),
        ("SH000300", "sh000300"),
        ("000300.SH", "sh000300"),
        ("sh.000300", "sh000300"),
        ("ＳＨ０００３００", "sh000300"),
        ("沪深300", "sh000300"),
        ("沪深300指数", "sh000300"),
        ("sh000001", "sh000001"),
        ("上证指数", "sh000001"),
        ("上证综指", "sh000001"),
        ("sz399006", "sz399006"),
        ("399006.SZ", "sz399006"),
        ("创业板指", "sz399006"),
    ],
)
def test_every_spelling_of_a_benchmark_names_its_index_key(db, spelling, key):
    target = import_symbol(SecurityMaster(db), spelling)
    assert (target.symbol, target.index.key, target.decided) == (key, key, None)


def test_bare_codes_an_index_shares_with_stocks(db):
    master = SecurityMaster(db)
    # 399xxx is Shenzhen's index range only: the index, and it says so
    target = import_symbol(master, "399006")
    assert (target.symbol, bare_code_line(target.decided)) == (
        "sz399006",
        "399006 是指数代码，已按 创业板指（sz399006）导入",
    )
    # 000001 is 平安银行 in the shipped list: the stock, saying how to get 上证指数
    target = import_symbol(master, "000001")
    assert (target.symbol, target.index) == ("000001", None)
    assert bare_code_line(target.decided) == "000001 已按股票 平安银行 导入；导入上证指数请用 --symbol sh000001"
    # 000300 is no listed stock, yet in Shenzhen's stock range: asked, never guessed
    with pytest.raises(RequestError, match="指数请用 --symbol sh000300，股票请用 --symbol sz000300"):
        import_symbol(master, "000300")
    assert import_symbol(master, "sz000300").symbol == "000300"  # the stock, as asked
    assert import_symbol(master, "600519.SH").symbol == "600519"
    for wrong in ("sh000905", "sh399006", "中证500"):  # an exchange's index pixiu keeps no benchmark of
        with pytest.raises(RequestError, match="不是可导入的基准指数；可导入：沪深300（sh000300）"):
            import_symbol(master, wrong)


@pytest.mark.parametrize(
    "name, spelling",
    [
        ("SH#000300.txt", "sh000300"),
        ("000300.SH.csv", "sh000300"),
        ("sz399006_创业板指.csv", "sz399006"),
        ("SH600519_茅台.txt", "sh600519"),
        ("600519.csv", "600519"),
        ("沪深300.csv", "sh000300"),
        ("daily.csv", None),
    ],
)
def test_the_code_in_a_file_name_keeps_its_exchange(tmp_path, name, spelling):
    assert spelling_in_name(tmp_path / name) == spelling


def test_import_stores_an_index_where_a_sync_does_and_excess_return_works_offline(env, pixiu_home, tmp_path):
    stock, actions = (str(MARKET_FIXTURES / name) for name in ("000333.csv", "000333_actions.csv"))
    done = pixiu_in_process(env, "data", "import", stock, "--symbol", "000333", "--actions", actions)
    assert done.returncode == 0, done.stderr
    done = pixiu_in_process(
        env, "data", "import", str(_tdx_index_file(tmp_path)), "--symbol", "sh000300", "--name", "沪深300", text=True
    )
    assert done.returncode == 0, done.stderr
    assert "已导入 指数 沪深300（sh000300）：2295 条日线，2015-06-01 至 2025-05-30；格式 tdx" in done.stdout
    assert "画像" not in done.stdout  # nothing recomputed for an index
    db = open_database(pixiu_home / "pixiu.db")
    try:
        assert {s.symbol for s in MarketStore(db).series()} == {"000333", "sh000300"}  # never 000300
        assert SecurityMaster(db).get("000300") is None and SecurityMaster(db).get("sh000300") is None
        assert MarketStore(db).actions("sh000300") == []
        analytics = AnalyticsStore(db)
        assert analytics.backtests(["sh000300"]) == [] and {r.symbol for r in analytics.backtests(None)} == {"000333"}
        index = BenchmarkCloses(MarketData(Market(db)))  # what excess returns read
        assert (index.dates[0], index.close[0]) == ("2015-06-01", 2976.0)  # 14.88 × 200
    finally:
        db.close()
    status = {s["symbol"]: s for s in json.loads(pixiu_in_process(env, "data", "status", "--json").stdout)}
    assert status["sh000300"]["name"] == "沪深300"
    rows = json.loads(pixiu_in_process(env, "profile", "000333", "--json").stdout)
    hold = next(r for r in rows if r["strategy"] == "buy_and_hold")
    # By hand: the window 2022-05-31 … 2025-05-30 holds 728 sessions; the index file closed
    # 17.82 × 200 = 3,564.00 on 2022-05-30 (the session before the window) and 6.64 × 200 =
    # 1,328.00 on 2025-05-30; (1328 / 3564) ** (243 / 728) − 1 = −28.073% a year, so the
    # excess is buy-and-hold's annual return + 28.073 points.
    assert (hold["window_start"], hold["window_end"]) == ("2022-05-31", "2025-05-30")
    assert (1328 / 3564) ** (243 / 728) - 1 == pytest.approx(-0.28073, abs=5e-6)
    assert hold["excess_vs_csi300"] - hold["annual_return"] == pytest.approx(0.28073, abs=5e-6)
    table = pixiu_in_process(env, "profile", "000333", text=True).stdout
    assert "超额沪深300" in table and f"{hold['excess_vs_csi300']:+.1%}" in table
    bars = json.loads(pixiu_in_process(env, "data", "bars", "沪深300", "--from", "2025-05-30", "--json").stdout)
    assert [(b["date"], b["close"]) for b in bars] == [("2025-05-30", 1328.0)]


def test_a_bare_shared_code_and_index_actions_are_refused_with_nothing_written(env, pixiu_home, tmp_path):
    index_file = _tdx_index_file(tmp_path, "index.txt")
    # before: --symbol 000300 stored the index as a stock, with a profile and a master row
    done = pixiu_in_process(
        env, "data", "import", str(index_file), "--symbol", "000300", "--name", "沪深300", text=True
    )
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert "000300 可能是沪深300指数，也可能是深市股票：指数请用 --symbol sh000300" in done.stderr
    actions = str(MARKET_FIXTURES / "000333_actions.csv")
    done = pixiu_in_process(
        env, "data", "import", str(index_file), "--symbol", "sh000300", "--actions", actions, text=True
    )
    assert done.returncode == 1 and "沪深300是指数，没有除权除息" in done.stderr and done.stderr.count("\n") == 1
    db = open_database(pixiu_home / "pixiu.db")
    try:
        assert MarketStore(db).series() == [] and SecurityMaster(db).get("000300") is None
    finally:
        db.close()


def test_a_bare_index_code_is_imported_as_the_index_and_says_so(env, pixiu_home):
    done = pixiu_in_process(env, "data", "import", str(MARKET_FIXTURES / "000002.csv"), "--symbol", "399006", text=True)
    assert done.returncode == 0, done.stderr
    assert "399006 是指数代码，已按 创业板指（sz399006）导入" in done.stdout


def test_a_folder_import_reads_the_exchange_from_each_name(env, pixiu_home, tmp_path):
    folder = tmp_path / "bars"
    folder.mkdir()
    _tdx_index_file(folder, "SH#000300.txt")
    (folder / "000300.txt").write_bytes(_tdx_index_file(tmp_path, "copy.txt").read_bytes())
    (folder / "000001.csv").write_bytes((MARKET_FIXTURES / "000001.csv").read_bytes())
    done = pixiu_in_process(env, "data", "import", str(folder), "--no-refresh", text=True)
    assert done.returncode == 0, done.stderr
    assert "已导入 2 个文件" in done.stdout and "失败 1 个" in done.stdout
    assert "000300.txt：000300 可能是沪深300指数" in done.stdout + done.stderr
    assert "000001.csv：000001 已按股票 平安银行 导入；导入上证指数请用 --symbol sh000001" in done.stdout
    db = open_database(pixiu_home / "pixiu.db")
    try:
        assert {s.symbol for s in MarketStore(db).series()} == {"000001", "sh000300"}
    finally:
        db.close()
