"""`pixiu export` carries the whole account: every fill, every stated cash balance and the
decisions the fills link, so `pixiu import` of the file into an empty home reproduces
`pixiu holdings --json` exactly. Real homes, real SQLite files, the real entry point in
process.

Nothing in `holdings --json` depends on the clock once PIXIU_NOW is the same: the output is
compared whole. Market bars are not part of the export (they are synced again, or imported
from the same file): both homes load the same bars."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from pixiu_cli.account.handle import Account
from pixiu_cli.account.trades import undo_trade
from pixiu_cli.kernel.store.database import open_database
from tests.helpers import clean_env, pixiu_in_process

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
THS = FIXTURES / "statements" / "ths_jiaogedan.csv"
BARS = FIXTURES / "market" / "000333.csv"
ACTIONS = FIXTURES / "market" / "000333_actions.csv"
DEMO_MARKET = FIXTURES.parents[1] / "data" / "demo" / "market"
NOW = "2025-08-20T16:00"
NO_ACCOUNT = "文件中没有账户部分（成交与现金，较早版本的导出没有）：账户未改动。"


def home(tmp_path: Path, name: str) -> dict[str, str]:
    folder = tmp_path / name
    folder.mkdir()
    return clean_env(folder, PIXIU_NOW=NOW)


def run(env, *args) -> str:
    done = pixiu_in_process(env, *args, text=True)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout + done.stderr


def fails(env, *args) -> str:
    done = pixiu_in_process(env, *args, text=True)
    assert done.returncode == 1, (args, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    return done.stderr.strip()


def holdings(env, *extra) -> dict:
    return json.loads(run(env, "holdings", "--json", *extra))


def trades(env) -> list[dict]:
    return json.loads(run(env, "trades", "--json"))


def with_bars(env, bars=BARS, actions=ACTIONS) -> dict[str, str]:
    run(env, "data", "import", str(bars), "--symbol", "000333", "--actions", str(actions))
    return env


@pytest.fixture
def account(tmp_path):
    """A home with a 同花顺 statement, a hand-entered buy, a stated cash balance and a sell,
    and the file it exports."""
    env = with_bars(home(tmp_path, "source"))
    run(env, "trades", "import", str(THS))  # 12 fills, cash 27,094.95 as of 2025-08-15, d1–d4
    run(env, "trade", "buy", "600519", "200", "1500", "--date", "2025-08-01", "--fee", "5")  # d5
    run(env, "cash", "set", "50000", "--date", "2025-08-18")
    run(env, "trade", "sell", "600519", "100", "1600", "--fee", "3")  # d6, on 2025-08-20
    exported = tmp_path / "export.json"
    assert f"已导出到 {exported}" in run(env, "export", "-o", str(exported))
    return env, exported


def test_the_export_holds_every_fill_every_balance_and_the_linked_decisions(account):
    env, exported = account
    document = json.loads(exported.read_text(encoding="utf-8"))
    assert document["version"] == 2
    fills, cash = document["account"]["fills"], document["account"]["cash"]
    # the statement's 12 rows and the two trades told by hand
    assert len(fills) == 14 and Counter(f["origin"] for f in fills) == {"statement": 12, "manual": 2}
    assert Counter(f["kind"] for f in fills)["buy"] == 3 and Counter(f["kind"] for f in fills)["sell"] == 3
    assert [(c["amount"], c["as_of"], c["source"]) for c in cash] == [
        (27094.95, "2025-08-15", "statement"),
        (50000.0, "2025-08-18", "user"),
    ]
    first_buy = next(f for f in fills if f.get("contract") == "1001")
    assert (first_buy["account"], first_buy["symbol"], first_buy["quantity"], first_buy["fees"]) == (
        "0123456789",
        "000333",
        500.0,
        5.35,
    )
    assert first_buy["source_file"] == "ths_jiaogedan.csv" and first_buy["recorded_at"] == "2025-08-20T16:00:00+08:00"
    # each of the six trades names its decision; the decisions carry those ids
    linked = sorted(f["decision_id"] for f in fills if "decision_id" in f)
    assert linked == [1, 2, 3, 4, 5, 6] == sorted(d["id"] for d in document["decisions"])
    assert {f["fill_id"] for f in fills if f["origin"] == "manual"} == {"manual-5", "manual-6"}
    # cash: the latest stated balance, 50,000.00 on 2025-08-18, plus the sell after it:
    # 100 × 1,600 − 3 fee = 159,997 → 209,997.00
    cash = holdings(env)["cash"]
    assert (cash["amount"], cash["as_of"], cash["source"]) == (209997.0, "2025-08-20", "user")


def test_import_into_an_empty_home_reproduces_the_account_and_twice_adds_nothing(account, tmp_path):
    source, exported = account
    target = with_bars(home(tmp_path, "target"))
    merged = run(target, "import", str(exported))
    assert "账户成交（account.fills）：新增 14，已有 0（按 fill_id，不重复导入）" in merged
    assert "账户现金记录（account.cash）：新增 2，已有 0" in merged
    assert holdings(target) == holdings(source)
    assert trades(target) == trades(source)  # the same fills under the same decision refs

    again = run(target, "import", str(exported))
    assert "账户成交（account.fills）：新增 0，已有 14（按 fill_id，不重复导入）" in again
    assert "账户现金记录（account.cash）：新增 0，已有 2" in again
    assert "操作决策（decisions）：新增 0" in again
    assert holdings(target) == holdings(source) and len(trades(target)) == 14


def test_replace_replaces_the_account_and_says_so(account, tmp_path):
    source, exported = account
    target = with_bars(home(tmp_path, "target"))
    run(target, "trade", "buy", "000001", "1000", "10.5", "--date", "2025-06-03")
    run(target, "cash", "set", "8000")
    replaced = run(target, "import", "--replace", str(exported))
    assert "已替换全部数据：" in replaced and "；账户：成交 14 笔，现金记录 2 条。" in replaced
    assert holdings(target) == holdings(source)
    assert "000001" not in {t["symbol"] for t in trades(target)} and len(trades(target)) == 14


def test_decisions_that_get_other_ids_keep_their_fills(tmp_path):
    """The source withdrew its first trade, so its trades are d2 and d3; in the new home
    they are d1 and d2, and the fills of trades told by hand follow them (their fill id is
    made of the decision's), so the next trade there, d3, gets a fill id of its own."""
    source = home(tmp_path, "source")
    run(source, "trade", "buy", "600036", "100", "40")  # d1, withdrawn below
    run(source, "trade", "buy", "000001", "200", "10", "--date", "2025-08-01")  # d2
    db = open_database(Path(source["PIXIU_HOME"]) / "pixiu.db")
    try:
        undo_trade(Account(db), 1, "2025-08-20T16:00:00+08:00")
    finally:
        db.close()
    run(source, "trade", "buy", "600519", "100", "1500", "--fee", "1")  # d3
    exported = tmp_path / "export.json"
    run(source, "export", "-o", str(exported))
    fills = json.loads(exported.read_text(encoding="utf-8"))["account"]["fills"]
    assert [(f["symbol"], f["fill_id"], f["decision_id"]) for f in fills] == [
        ("000001", "manual-2", 2),
        ("600519", "manual-3", 3),
    ]

    target = home(tmp_path, "target")
    run(target, "import", str(exported))
    assert holdings(target) == holdings(source)
    assert [(t["symbol"], t["ref"]) for t in trades(target)] == [("000001", "d1"), ("600519", "d2")]
    assert "已记录 #d3" in run(target, "trade", "buy", "601318", "100", "50")
    assert [t["ref"] for t in trades(target)] == ["d1", "d2", "d3"]
    assert "新增 0，已有 2" in run(target, "import", str(exported))  # manual-1, manual-2 again


def test_an_export_without_an_account_leaves_it_alone_and_says_so(account, tmp_path):
    source, exported = account
    old = json.loads(exported.read_text(encoding="utf-8"))
    del old["account"]
    old["version"] = 1
    older = tmp_path / "old.json"
    older.write_text(json.dumps(old, ensure_ascii=False), encoding="utf-8")

    target = home(tmp_path, "target")
    run(target, "trade", "buy", "000001", "1000", "10.5", "--date", "2025-06-03")
    run(target, "cash", "set", "8000")
    before = trades(target)
    merged = run(target, "import", str(older))
    assert NO_ACCOUNT in merged and "账户成交" not in merged
    assert trades(target) == before and holdings(target)["cash"]["amount"] == 8000.0
    replaced = run(target, "import", "--replace", str(older))
    assert "已替换文件中的数据：" in replaced and NO_ACCOUNT in replaced and "已替换全部数据" not in replaced
    assert [t["symbol"] for t in trades(target)] == ["000001"]  # the account's one fill stays
    assert holdings(target)["cash"]["amount"] == 8000.0


def test_the_demo_account_travels(tmp_path):
    demo = home(tmp_path, "demo")
    run(demo, "context", "--demo", "我的持仓怎么样")  # builds the demo database
    run(demo, "cash", "set", "200000", "--date", "2025-08-19", "--demo")
    run(demo, "trade", "sell", "000333", "500", "80", "--fee", "0", "--demo")
    exported = tmp_path / "demo.json"
    run(demo, "export", "--demo", "-o", str(exported))
    assert len(json.loads(exported.read_text(encoding="utf-8"))["account"]["fills"]) == 1

    target = with_bars(home(tmp_path, "target"), DEMO_MARKET / "000333.csv", DEMO_MARKET / "000333_actions.csv")
    run(target, "import", str(exported))
    before = holdings(demo, "--demo")
    assert len(before["holdings"]) == 8 and before["cash"]["amount"] == 240000.0  # 200,000 + 500 × 80 the day after
    assert holdings(target) == before


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda d: d["account"]["fills"][0].update(later_column="x"),
            "account.fills[0].later_column：这个版本的 pixiu 没有这一项",
        ),
        (lambda d: d["account"]["fills"][1].update(decision_id=99), "decisions 中没有 id 为 99 的操作决策"),
        (lambda d: d["account"]["fills"][2].update(kind="opening"), "account.fills[2].kind：应为 buy / sell"),
        (lambda d: d["account"]["fills"][3].update(day="2025-02-30"), "account.fills[3].day：应为日期 YYYY-MM-DD"),
        (lambda d: d["account"]["fills"].append(dict(d["account"]["fills"][0])), "account.fills[14].fill_id：与"),
        (lambda d: d["account"]["cash"][0].pop("amount"), "account.cash[0].amount：缺少必填字段"),
        (lambda d: d.update(account=[]), "account：应为对象"),
        (lambda d: d.update(version=3), "version：这个 pixiu 读得懂的格式版本是 1–2"),
    ],
)
def test_a_bad_account_section_imports_nothing(account, tmp_path, change, message):
    _, exported = account
    document = json.loads(exported.read_text(encoding="utf-8"))
    change(document)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    target = home(tmp_path, "target")
    error = fails(target, "import", str(bad))
    assert error.startswith("错误：导入失败，未做任何修改：") or "导入失败，未做任何修改：" in error
    assert message in error
    assert "还没有成交记录" in run(target, "trades") and holdings(target)["holdings"] == []
