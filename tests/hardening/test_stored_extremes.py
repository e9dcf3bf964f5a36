"""Nothing stored can make a reading command fail. Every extreme value is planted straight in
the SQLite file, past every gate (as an older version or a damaged file would hold it), in
every numeric column of the tables the readers use; then every reading command runs:
holdings, trades, cash, fundamentals, market, brief, context, ask (offline), track, news,
export, memory, chart, and the MCP reads. A figure outside what any gate lets in shows as 无效值
or — (or its row is left out); a row of the ledger itself (a fill, a cash balance, a bar, a
corporate action) no figure can be made from is left out of the account, which is derived
from the rest and says which row it left out and how to mend it; a write on top of it is
refused in one line naming the row. Never 意外错误, never a traceback."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sqlite3
from decimal import Decimal
from importlib.util import find_spec
from pathlib import Path
from unittest import mock

import pytest

from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.fundamentals.model import Dividend, FinancialReport, FundamentalsWrite, ReportNotice, ValuationDay
from pixiu_cli.market.fundamentals.store import FundamentalsStore
from pixiu_cli.market.review.model import Breadth, IndustryMove, Snapshot
from pixiu_cli.market.review.store import MarketReviewStore
from tests.helpers import clean_env, demo_brief_env, pixiu_in_process

NOW = "2025-06-03T16:00:00"
EXTREMES = [1e308, -1e308, 1e99, 1e20, 1e15, 2**62, "abc", "1e999"]
# Tables whose figures are shown, never computed into the account: each reads as 无效值 or —.
FIGURES = ("valuation_days", "financial_reports", "dividends", "report_notices", "market_breadth", "industry_moves",
           "holdings", "decisions", "news", "reports", "signals", "profiles", "memory_events", "alerts")  # fmt: skip
# The ledger the account is derived from: an unreadable row is left out, and said so.
LEDGER = ("account_fills", "account_cash", "market_bars", "corporate_actions")
NOTED = {"account_fills", "account_cash", "corporate_actions"}  # a bar left out: an older close
NEWEST = {  # each ledger table's newest row (market_bars has no rowid)
    "account_fills": "id = (select max(id) from account_fills)",
    "account_cash": "id = (select max(id) from account_cash)",
    "market_bars": "(symbol, date) = (select symbol, date from market_bars order by date desc limit 1)",
    "corporate_actions": "(symbol, ex_date, source) = "
    "(select symbol, ex_date, source from corporate_actions order by ex_date desc limit 1)",
}
KEYS = {"id", "symbol", "date", "session", "code", "fill_id", "kind", "source", "key", "period", "ex_date"}
READERS = [
    ("holdings",), ("holdings", "--json"), ("trades",), ("trades", "--json"), ("cash",),
    ("fundamentals", "000333"), ("fundamentals", "000333", "--json"), ("market",), ("market", "--json"),
    ("context", "美的的估值和大盘怎么样"), ("context", "我的持仓怎么样", "--json"), ("ask", "美的怎么样，大盘呢"),
    ("brief", "--yes"), ("track",), ("news",), ("memory",), ("chart", "000333"), ("signal",),
]  # fmt: skip


@pytest.fixture(scope="module")
def stocked(tmp_path_factory) -> Path:
    """A home with every kind of stored figure: the demo's holdings and 美的集团's bars and
    actions, a trade, cash, a note, fundamentals and a market snapshot, news and a report."""
    home = tmp_path_factory.mktemp("stocked") / "home"
    env = demo_brief_env(home, NOW)
    for args in (("cash", "set", "50000"), ("trade", "buy", "000333", "100", "70", "--date", "2025-05-20"),
                 ("remember", "不追高", "--symbol", "000333")):  # fmt: skip
        assert pixiu_in_process(env, *args, text=True).returncode == 0
    db = open_database(home / "pixiu.db")
    try:
        d = Decimal
        FundamentalsStore(db).write(FundamentalsWrite(
            "000333", "baostock", NOW,
            (ValuationDay("000333", "2025-05-30", "baostock", d("79"), d("12"), d("2"), d("1"), d("8"), d("5e11"), d("4e11")),),
            (FinancialReport("000333", "2025-03-31", "baostock", "2025-04-28", d("1e11"), d("0.1"), d("1e10"), d("0.1"),
                             d("0.05"), d("0.3"), d("0.1"), d("0.6"), d("1e10"), d("1"), d("5"), d("7e9"), d("6e9")),),
            (Dividend("000333", "baostock", "2025-04-01", "2025-05-20", "2025-05-20", d("3.5"), None, None, "10派35元"),),
            (ReportNotice("000333", "2025-06-30", "forecast", "baostock", "2025-05-25", "预增", d("0.1"), d("0.2")),),
        ))  # fmt: skip
        taken = "2025-05-30T16:00:00+08:00"
        MarketReviewStore(db).write(Snapshot(
            Breadth("2025-05-30", taken, "akshare", True, 5000, 3000, 1800, 200, 30, 80, 10, d("1e12")),
            (IndustryMove("2025-05-30", "BK1", "家电", d("0.01"), 10, 5, "美的", d("0.05"), "akshare", taken),),
        ))  # fmt: skip
        db.conn.execute("insert into news (symbol, title, summary, source, layer, published_at) values "
                        "('000333', '新闻', '摘要', '公告', '事实', '2025-06-01T10:00:00+08:00')")  # fmt: skip
        db.conn.execute("insert into reports (title, symbols, conclusion, created_at) values "
                        "('周报', '[\"000333\"]', '稳', '2025-06-01T10:00:00+08:00')")  # fmt: skip
        db.conn.commit()
    finally:
        db.close()
    return home


def planted(stocked: Path, tmp_path: Path, tables: tuple[str, ...], value, *, newest: bool = False) -> dict[str, str]:
    """A copy of the stocked home with `value` in every non-key column of `tables` that holds
    a number (SQLite keeps any value in any column), or, with `newest`, of each table's
    newest row only; the environment to run pixiu in it."""
    home = tmp_path / "home"
    shutil.copytree(stocked, home)
    db = sqlite3.connect(home / "pixiu.db")
    with db:
        for table in tables:
            only = f" where {NEWEST[table]}" if newest else ""
            for _, column, *_ in db.execute(f"pragma table_info({table})").fetchall():
                numeric = db.execute(  # a number, or text that is only a number (fundamentals keep decimal text)
                    f"select count(*) from {table} where typeof({column}) in ('real', 'integer') or "
                    f"({column} glob '*[0-9]*' and not {column} glob '*[^0-9.eE+-]*' and {column} not like '%-%-%')"
                ).fetchone()[0]
                if column in KEYS or column.endswith(("_id", "_at")) or not numeric:
                    continue
                try:
                    db.execute(f"update {table} set {column} = ?{only}", [value])
                except (sqlite3.IntegrityError, OverflowError):
                    pass  # a constraint SQLite itself keeps
    db.close()
    return clean_env(home, PIXIU_NOW=NOW)


def run(env, *args):
    done = pixiu_in_process(env, *args, text=True)
    said = done.stdout + done.stderr
    assert "意外错误" not in said and "Traceback" not in said, (args, done.stderr)
    return done


def mcp_reads(env) -> dict:
    """Every MCP read over the SDK's in-memory transport on the server `pixiu mcp` builds."""
    from mcp import Client
    from mcp.types import Implementation

    from pixiu_cli.kernel import safe_text as redact
    from pixiu_cli.kernel.settings import load_settings
    from pixiu_cli.mcp.reads import Reader
    from pixiu_cli.mcp.server import build_server

    calls = {"context_for": {"question": "我的持仓怎么样"}, "holdings": {}, "trades": {}, "alerts": {}, "profiles": {},
             "signals": {}, "news": {}, "latest_brief": {}, "search_memory": {"text": "追高"}}  # fmt: skip

    async def steps():
        server = build_server(Reader(load_settings()), allow_proposals=False)
        async with Client(server, client_info=Implementation(name="t", version="1")) as client:
            return {name: await client.call_tool(name, args) for name, args in calls.items()}

    with mock.patch.dict(os.environ, env, clear=True), mock.patch.object(redact, "_SECRETS", set()):
        return asyncio.run(steps())


@pytest.mark.parametrize("value", EXTREMES, ids=[repr(v) for v in EXTREMES])
def test_extreme_figures_never_fail_a_reading_command(stocked, tmp_path, value):
    env = planted(stocked, tmp_path, FIGURES, value)
    for args in READERS:
        done = run(env, *args)
        assert done.returncode == 0, (args, done.stderr)
    shown = run(env, "fundamentals", "000333").stdout
    assert "PE(TTM)\t—" in shown and "e+" not in shown  # no figure past the gates, shown as —
    assert "1e+" not in run(env, "market").stdout and "1e+" not in run(env, "memory").stdout
    run(env, "export", "-o", str(tmp_path / "out.json"))
    if find_spec("mcp") is not None:
        answers = mcp_reads(env)
        assert not [(name, result.content) for name, result in answers.items() if result.is_error]


def without_newest_rows(stocked: Path, tmp_path: Path) -> dict[str, str]:
    """A copy of the stocked home with each ledger table's newest row deleted: the account as
    it is without the rows `planted(..., newest=True)` damages."""
    home = tmp_path / "reference"
    shutil.copytree(stocked, home)
    db = sqlite3.connect(home / "pixiu.db")
    with db:
        for table in LEDGER:
            db.execute(f"delete from {table} where {NEWEST[table]}")
    db.close()
    return clean_env(home, PIXIU_NOW=NOW)


def newest_row_names(stocked: Path) -> set[str]:
    """How the note names each noted table's newest row: its id, or its stock and ex-date."""
    db = sqlite3.connect(stocked / "pixiu.db")
    try:
        fill, cash = (db.execute(f"select max(id) from {t}").fetchone()[0] for t in ("account_fills", "account_cash"))
        action = db.execute("select symbol, ex_date from corporate_actions order by ex_date desc limit 1").fetchone()
    finally:
        db.close()
    return {f"account_fills 第 {fill} 行", f"account_cash 第 {cash} 行", f"corporate_actions {' '.join(action)}"}


@pytest.mark.parametrize("value", EXTREMES, ids=[repr(v) for v in EXTREMES])
def test_an_extreme_ledger_row_is_read_around_and_named(stocked, tmp_path, value):
    env = planted(stocked, tmp_path, LEDGER, value, newest=True)
    for args in READERS:
        done = run(env, *args)
        assert done.returncode == 0, (args, done.stderr)
    shown = run(env, "holdings")
    said = shown.stdout + shown.stderr
    assert "已跳过数据库中无法读取的 3 条记录" in said and all(name in said for name in newest_row_names(stocked)), said
    record = json.loads(run(env, "holdings", "--json").stdout)
    assert {row["table"] for row in record.pop("skipped_rows")} == NOTED
    # every figure is the account's without those rows
    reference = json.loads(run(without_newest_rows(stocked, tmp_path), "holdings", "--json").stdout)
    assert reference.pop("skipped_rows") == [] and record == reference
    assert "account_fills 第" in run(env, "trades").stderr and "account_cash 第" in run(env, "cash").stderr
    block = json.loads(run(env, "context", "我的持仓怎么样", "--json").stdout)
    assert "已跳过数据库中无法读取的 3 条记录" in json.dumps(block, ensure_ascii=False)
    brief = run(env, "brief", "--yes")
    assert "已跳过数据库中无法读取的 3 条记录" in brief.stdout + brief.stderr
    run(env, "export", "-o", str(tmp_path / "out.json"))
    if find_spec("mcp") is not None:
        answers = mcp_reads(env)
        assert not [(name, result.content) for name, result in answers.items() if result.is_error]
        assert "account_fills" in str(answers["holdings"].content)
    # a write on top of the stock's unreadable rows refuses, naming one, and writes nothing
    done = run(env, "trade", "buy", "000333", "100", "70", "--date", "2025-05-21")
    (line,) = done.stderr.strip().splitlines()
    assert done.returncode == 1 and line.startswith("错误：数据库中 "), line
    assert any(f"{table} 表 000333" in line or f"{table} 表 {line.split()[3]}" in line for table in NOTED), line
    assert json.loads(run(env, "holdings", "--json").stdout)["holdings"] == record["holdings"]
    # the note's mend: the unreadable trade undone, the account no longer leaves it out
    decision = sqlite3.connect(Path(env["PIXIU_HOME"]) / "pixiu.db").execute(
        "select decision_id from account_fills where id = (select max(id) from account_fills)"
    )
    assert run(env, "forget", f"d{decision.fetchone()[0]}").returncode == 0
    mended = json.loads(run(env, "holdings", "--json").stdout)
    assert {row["table"] for row in mended.pop("skipped_rows")} == NOTED - {"account_fills"} and mended == reference


def test_a_stock_with_an_unreadable_action_is_read_around_but_not_written_on(tmp_path):
    """Undoing a trade of a stock whose ledger has an unreadable row would write its holding
    from a guess: refused in one line and nothing changed (no checkpoint either); every read
    of the account still answers, around the row."""
    home = tmp_path / "home"
    env = clean_env(home, PIXIU_NOW=NOW)
    for day in ("2025-05-19", "2025-05-20"):
        assert run(env, "trade", "buy", "600000", "100", "10", "--date", day).returncode == 0
    db = sqlite3.connect(home / "pixiu.db")
    with db:
        marks = db.execute("select * from position_checkpoints").fetchall()
        assert len(marks) == 1  # through 05-20: the action after it leaves it standing
        db.execute("insert into corporate_actions (symbol, ex_date, cash_per_share, shares_per_share, source) "
                   "values ('600000', '2025-05-21', 'abc', 0, 'import')")  # fmt: skip
        decision = db.execute("select max(decision_id) from account_fills").fetchone()[0]
    done = run(env, "forget", f"d{decision}")
    assert done.returncode == 1 and done.stderr.startswith("错误：数据库中 corporate_actions 表 600000 2025-05-21 行的")
    said = run(env, "holdings")
    assert "corporate_actions 600000 2025-05-21：每股派现 'abc' 不是有效数字" in said.stderr
    assert json.loads(run(env, "holdings", "--json").stdout)["holdings"][0]["shares"] == 200
    assert db.execute("select * from position_checkpoints").fetchall() == marks
    db.close()
