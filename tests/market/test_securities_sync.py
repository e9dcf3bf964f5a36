"""`pixiu data sync --securities`: the security master refreshed from a source's list of every
listed stock (baostock's `query_stock_basic` ResultData, akshare's `stock_info_a_code_name`
DataFrame), renamed stocks findable by their old names, a failure one line that writes
nothing, and `data status` naming the list's date."""

from __future__ import annotations

import csv
import json
import sys
from datetime import datetime
from types import SimpleNamespace

import pytest

from pixiu_cli.kernel.resources import data_dir
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.calendar import SHANGHAI
from pixiu_cli.market.store import SecurityMaster
from tests.helpers import ResultData, clean_env, pixiu_in_process

RENAMED = ("300750", "宁德新能")  # a made-up rename of a stock the shipped list calls 宁德时代
NEW = ("920999", "新上市")  # a code the shipped list does not have
BASIC_FIELDS = ["code", "code_name", "ipoDate", "outDate", "type", "status"]


def shipped_rows() -> list[dict[str, str]]:
    with (data_dir() / "securities" / "stock_basic.csv").open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def baostock_basic_rows() -> list[list[str]]:
    """The shipped stocks as baostock lists them (sh./sz./bj. codes, type 1 = stock), one
    renamed, one new, and the index rows baostock mixes in (type 2)."""
    rows = []
    for r in shipped_rows():
        name = RENAMED[1] if r["symbol"] == RENAMED[0] else r["name"]
        rows.append([f"{r['ts_code'][-2:].lower()}.{r['symbol']}", name, r["list_date"], "", "1", "1"])
    rows.append([f"bj.{NEW[0]}", NEW[1], "2026-11-20", "", "1", "1"])
    rows.append(["sh.000001", "上证综合指数", "1991-07-15", "", "2", "1"])
    return rows


class ListingBaostock:
    """The baostock module as far as a list refresh uses it: login, the list, logout."""

    def __init__(self, rows):
        self.rows = rows

    def login(self):
        return SimpleNamespace(error_code="0", error_msg="success")

    def logout(self):
        return SimpleNamespace(error_code="0")

    def query_stock_basic(self):
        return ResultData(list(BASIC_FIELDS), self.rows)


@pytest.fixture
def home(tmp_path):
    return tmp_path / "home"


def sync_with(monkeypatch, home, fake, *args):
    monkeypatch.setitem(sys.modules, "baostock", fake)
    return pixiu_in_process(clean_env(home), "data", "sync", "--securities", *args, text=True)


def explain(home, text: str) -> dict:
    done = pixiu_in_process(clean_env(home), "context", text, "--explain", text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["selection"]


def test_baostock_list_refreshes_the_master_and_a_renamed_stock_keeps_its_old_name(monkeypatch, home):
    done = sync_with(monkeypatch, home, ListingBaostock(baostock_basic_rows()))
    assert done.returncode == 0, done.stderr
    assert "证券列表已从 baostock 更新：5,449 只股票，新增 1 只，改名 1 只" in done.stderr + done.stdout
    assert "300750：宁德时代 → 宁德新能（旧名保留为别名）" in done.stdout
    db = open_database(home / "pixiu.db")
    try:
        master = SecurityMaster(db)
        assert master.get(RENAMED[0]).name == RENAMED[1] and master.get(RENAMED[0]).source == "baostock"
        assert master.get("000001").name == "平安银行"  # the index with its digits is not a stock
        assert {(a.alias, a.symbol, a.source) for a in master.aliases()} == {("宁德时代", "300750", "former")}
    finally:
        db.close()
    for text, kind in (("宁德时代能买吗", "former"), ("宁德新能能买吗", "full"), ("新上市怎么样", "listed")):
        selection = explain(home, text)
        assert selection["symbols"] == [RENAMED[0] if "宁德" in text else NEW[0]], (text, selection)
        assert selection["mentions"][0]["kind"] == kind


def test_data_status_names_the_lists_date_after_a_sync(monkeypatch, home):
    before = pixiu_in_process(clean_env(home), "data", "status", text=True)
    assert "证券列表：内置 5,448 只股票，截至 2025-11-07" in before.stdout
    assert "数据源同步" not in before.stdout
    assert sync_with(monkeypatch, home, ListingBaostock(baostock_basic_rows())).returncode == 0
    after = pixiu_in_process(clean_env(home), "data", "status", text=True)
    line = next(x for x in after.stdout.splitlines() if x.startswith("证券列表："))
    today = datetime.now(SHANGHAI).date().isoformat()
    assert line.endswith(f"数据源同步 5,449 只（{today}）"), line


def test_a_failed_or_short_list_is_one_line_and_writes_nothing(monkeypatch, home):
    assert sync_with(monkeypatch, home, ListingBaostock(baostock_basic_rows())).returncode == 0
    down = ListingBaostock([])
    down.query_stock_basic = lambda: ResultData([], [], error_code="10002007", error_msg="网络接收错误")
    short = ListingBaostock(baostock_basic_rows()[:100])
    for fake in (down, short):
        done = sync_with(monkeypatch, home, fake)
        assert done.returncode == 1
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "证券列表未更新" in lines[0] and "已保留现有列表" in lines[0], lines
    assert "疑似不完整" in done.stderr
    db = open_database(home / "pixiu.db")
    try:
        assert len([s for s in SecurityMaster(db).all() if s.source == "baostock"]) == 5449
    finally:
        db.close()


def akshare_code_name_frame(rows):
    """`stock_info_a_code_name()` as akshare 1.19.5 builds it: each exchange's frame with
    its own Chinese columns renamed to code / name and concatenated."""
    import pandas as pd

    sh = pd.DataFrame([r for r in rows if r[0].startswith("6")], columns=["证券代码", "证券简称"])
    sz = pd.DataFrame([r for r in rows if not r[0].startswith("6")], columns=["A股代码", "A股简称"])
    sh = sh.rename(columns={"证券代码": "code", "证券简称": "name"})
    sz = sz.rename(columns={"A股代码": "code", "A股简称": "name"})
    return pd.concat([sh, sz], ignore_index=True)


def test_akshare_list_reads_the_exchanges_spellings(monkeypatch, home):
    rows = [(r["symbol"], r["name"]) for r in shipped_rows()]
    rows = [("000002", "万  科Ａ") if code == "000002" else (code, name) for code, name in rows]
    fake = SimpleNamespace(stock_info_a_code_name=lambda: akshare_code_name_frame(rows))
    monkeypatch.setitem(sys.modules, "akshare", fake)
    done = pixiu_in_process(clean_env(home), "data", "sync", "--securities", "--source", "akshare", text=True)
    assert done.returncode == 0, done.stderr
    db = open_database(home / "pixiu.db")
    try:
        master = SecurityMaster(db)
        assert master.get("000002").name == "万科A"  # full-width letter and padding taken out
        assert len([s for s in master.all() if s.source == "akshare"]) == 5448
        assert master.aliases() == []  # no stock was renamed
    finally:
        db.close()


def test_securities_takes_no_codes(home):
    done = pixiu_in_process(clean_env(home), "data", "sync", "--securities", "600519", text=True)
    assert done.returncode != 0 and "--securities 只更新证券列表" in done.stderr
