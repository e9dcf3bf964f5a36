"""What leaves the store has the types the domain declares, whatever SQLite holds: a number an
old import wrote as text is read as that number, a BLOB in a text column as its text, a value
that is no number as NaN (shown 无效值, never a figure), and a market figure nobody can
compute with is refused in one line that says where it is. conversation/context/memory.py trusts the
types and has no defensive wrappers left."""

from __future__ import annotations

import ast
import math
import sqlite3
from dataclasses import fields
from pathlib import Path

import pytest

import pixiu_cli.conversation.context.memory_classes as memory_module
from pixiu_cli.conversation.context.builder import ContextBuilder
from pixiu_cli.conversation.context.memory_classes import MemoryLimits
from pixiu_cli.conversation.store import ConversationStore
from pixiu_cli.home.store import InvestorStore
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.kernel.store.rows import StoredValueError
from pixiu_cli.market.analytics.store import AnalyticsStore
from pixiu_cli.market.store import MarketStore, SecurityMaster
from tests.helpers import NOW, load, pixiu_in_process

RECENT = NOW.isoformat(timespec="seconds")

# Rows as an old import (or another program) could have written them: numbers as text that
# SQLite keeps as text in a REAL column (full-width digits, thousands separators), text
# columns holding BLOBs and numbers, an integer column holding text.
OLD_ROWS = {
    "holdings": [
        {"symbol": "600519", "name": "贵州茅台".encode(), "short_names": '["茅台"]', "shares": "１００",
         "cost": "1,500", "role": "core", "updated_at": RECENT},
        {"symbol": 600036, "name": 42, "short_names": None, "shares": None, "cost": b"\x00",
         "role": None, "updated_at": None},
    ],
    "profiles": [
        {"symbol": "600519", "strategy": b"MA", "period": 5, "annual_return": "１２e-2", "max_drawdown": "abc",
         "win_rate": None, "sharpe": b"1", "best_role": "core", "conclusion": None, "as_of": RECENT},
    ],
    "news": [{"symbol": None, "title": 7, "summary": b"s", "source": None, "layer": 3, "published_at": RECENT}],
    "signals": [{"symbol": "600519", "score": "０.５", "direction": None, "components": "{bad", "as_of": RECENT}],
    "reports": [{"title": None, "symbols": '["600519", 5]', "conclusion": 1.5, "created_at": RECENT}],
    "decisions": [
        {"symbol": "600519", "side": "buy", "price": "１５００", "quantity": "lots", "reason": b"\xff",
         "decided_at": RECENT, "source": "user", "return_5d": "０.０４２", "return_20d": "x"},
    ],
    "alerts": [{"symbol": None, "rule": 3, "message": b"m", "triggered_at": RECENT}],
    "memory_events": [
        {"kind": "user_note", "note_kind": "rule", "symbol": "600519", "text": 12, "created_at": RECENT,
         "source": None, "inject_count": "３"},
    ],
    "persona": [{"key": "risk", "value": 5, "updated_at": RECENT}],
}  # fmt: skip


def insert(db, table: str, row: dict) -> None:
    """Straight SQL, with no coercion on the way in."""
    marks = ", ".join("?" * len(row))
    db.conn.execute(f"insert into {table} ({', '.join(row)}) values ({marks})", list(row.values()))


@pytest.fixture
def old_db(tmp_path):
    db = open_database(tmp_path / "p.db")
    for table, rows in OLD_ROWS.items():
        for row in rows:
            insert(db, table, row)
    db.conn.commit()
    yield db
    db.close()


def declared(value, annotation: str) -> bool:
    """Whether `value` is what a field annotated `annotation` promises."""
    if annotation == "str":
        return type(value) is str
    if annotation == "str | None":
        return value is None or type(value) is str
    if annotation == "float | None":
        return value is None or type(value) is float
    if annotation in ("float", "int", "bool"):
        return type(value) is {"float": float, "int": int, "bool": bool}[annotation]
    if annotation == "tuple[str, ...]":
        return type(value) is tuple and all(type(item) is str for item in value)
    if annotation == "dict":
        return type(value) is dict
    raise AssertionError(f"no check for {annotation}")


def test_every_field_read_from_old_rows_has_its_declared_type(old_db):
    data = InvestorStore(old_db).export()
    records = [*data.holdings, *data.profiles, *data.news, *data.signals, *data.reports, *data.decisions]
    records += [*data.alerts, *data.notes]
    assert {type(r).__name__ for r in records} == {
        "Holding", "Profile", "NewsItem", "Signal", "Report", "Decision", "Alert", "MemoryEvent",
    }  # fmt: skip
    wrong = [
        f"{type(r).__name__}.{f.name} = {getattr(r, f.name)!r}"
        for r in records
        for f in fields(r)
        if not declared(getattr(r, f.name), str(f.type))
    ]
    assert wrong == []
    assert all(type(k) is str and type(v) is str for k, v in data.persona.items())


def test_numbers_written_as_text_come_out_as_those_numbers(old_db):
    domain = InvestorStore(old_db)
    moutai = domain.holding("600519")
    assert moutai.shares == 100.0 and moutai.name == "贵州茅台" and moutai.short_names == ("茅台",)
    assert math.isnan(moutai.cost)  # "1,500" spells no number: invalid, not 1.0 or 1500
    other = domain.holding("600036")
    assert (other.name, other.role, other.short_names, other.shares) == ("42", "", (), None)
    profile = domain.latest_profile("600519")
    assert profile.annual_return == pytest.approx(0.12) and profile.strategy == "MA" and profile.period == "5"
    assert math.isnan(profile.max_drawdown) and profile.win_rate is None and profile.sharpe == 1.0
    signal = domain.latest_signal("600519")
    assert signal.score == 0.5 and signal.components == {}
    decision = domain.export().decisions[0]
    assert decision.price == 1500.0 and math.isnan(decision.quantity) and decision.reason == "\ufffd"
    five, twenty = domain.decision_returns(decision.id)
    assert five == pytest.approx(0.042) and math.isnan(twenty)
    assert domain.export().notes[0].inject_count == 3
    assert domain.export().reports[0].symbols == ("600519",)
    assert domain.persona() == {"risk": "5"}


def test_the_block_shows_coerced_numbers_as_figures_and_invalid_ones_as_invalid(old_db):
    builder = ContextBuilder(ConversationStore(old_db), InvestorStore(old_db), MemoryLimits(), clock=lambda: NOW)
    block, _, _ = builder.context_block("茅台 600519 怎么样", now=NOW)
    assert "持仓关联：核心仓，100 股，成本 无效值" in block.text
    assert "年化 12.0%，最大回撤 无效值" in block.text
    assert "融合信号 +0.50" in block.text
    assert "买入 600519 贵州茅台 无效值 股 @ 1500.00" in block.text and "5 日 +4.2%" in block.text
    for figure in ("nan", "1,500", "１００"):
        assert figure not in block.text


def test_a_bar_whose_close_is_a_number_written_as_text_is_read_as_that_number(tmp_path):
    db = open_database(tmp_path / "p.db")
    load(db, "000333")
    market = MarketStore(db)
    day, close = market.bars("000333").dates[10], market.bars("000333").close[10]
    db.conn.execute("update market_bars set close = ? where symbol = '000333' and date = ?", [f"{close:.2f}".translate(
        str.maketrans("0123456789.", "０１２３４５６７８９.")), day])  # fmt: skip
    db.conn.commit()
    assert db.conn.execute("select typeof(close) from market_bars where date = ?", [day]).fetchone() == ("text",)
    series = market.bars("000333")
    assert series.close[10] == pytest.approx(close, abs=0.005) and all(type(x) is float for x in series.close)


def test_a_bar_that_is_no_number_is_left_out_as_a_day_without_a_bar(tmp_path):
    db = open_database(tmp_path / "p.db")
    load(db, "000333")
    whole = MarketStore(db).bars("000333")
    day, before = whole.dates[-1], whole.dates[-2]
    db.conn.execute("update market_bars set close = 'n/a' where symbol = '000333' and date = ?", [day])
    db.conn.commit()
    series = MarketStore(db).bars("000333")
    assert series.dates == whole.dates[:-1] and series.close == whole.close[:-1]
    assert MarketStore(db).last_closes(["000333"]) == {"000333": (before, whole.close[-2])}
    assert MarketStore(db).close_before("000333", "9999-12-31") == (before, whole.close[-2])


def test_pixiu_data_bars_over_a_bad_bar_shows_the_others(offline_env, pixiu_home):
    db = open_database(Path(pixiu_home) / "pixiu.db")
    load(db, "000333")
    day = MarketStore(db).bars("000333").dates[-1]
    db.conn.execute("update market_bars set high = x'00ff' where symbol = '000333' and date = ?", [day])
    db.conn.commit()
    db.close()
    done = pixiu_in_process(offline_env, "data", "bars", "000333", text=True)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert day not in done.stdout and "000333" in done.stdout


def test_an_alert_rule_whose_threshold_is_no_number_is_refused(tmp_path):
    db = open_database(tmp_path / "p.db")
    rules = AnalyticsStore(db)
    rule_id = rules.add_rule(symbol="000333", kind="below", threshold=50.0, created_at=RECENT, source="手动")
    assert rules.rule(rule_id).threshold == 50.0
    db.conn.execute("update alert_rules set threshold = '五十' where id = ?", [rule_id])
    db.conn.commit()
    with pytest.raises(StoredValueError, match=f"alert_rules 表 {rule_id} 行的 threshold"):
        rules.rules()


def test_securities_and_aliases_are_read_as_declared(tmp_path):
    db = open_database(tmp_path / "p.db")
    insert(db, "securities", {"symbol": "600519", "name": "贵州茅台".encode(), "kind": "", "is_st": "1"})
    insert(db, "security_aliases", {"alias": "茅台", "symbol": 600519, "source": "user", "created_at": None})
    db.conn.commit()
    master = SecurityMaster(db)
    security = master.get("600519")
    assert (security.name, security.kind, security.is_st, security.board) == ("贵州茅台", "stock", True, None)
    assert [(a.alias, a.symbol) for a in master.aliases()] == [("茅台", "600519")]


def test_context_memory_has_no_defensive_wrappers_left():
    tree = ast.parse(Path(memory_module.__file__).read_text(encoding="utf-8"))
    calls = sorted(
        {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    )
    imported = {
        alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names
    }  # fmt: skip
    assert "text" not in calls and "number" not in calls, calls
    assert not {"text", "number"} & imported


def test_sqlite_keeps_such_text_in_a_real_column():
    """Why the readers exist: SQLite's REAL affinity converts only well-formed numbers."""
    conn = sqlite3.connect(":memory:")
    conn.execute("create table t (x real)")
    conn.executemany("insert into t values (?)", [("１００",), ("1,500",), ("12.5",)])
    assert conn.execute("select typeof(x) from t").fetchall() == [("text",), ("text",), ("real",)]


@pytest.mark.parametrize("stored", ["1e999", "-inf", math.inf, "nan"])
def test_an_infinite_or_nan_number_is_invalid_like_any_value_that_is_no_number(tmp_path, stored):
    """One reading of a stored number (kernel/store/rows.py spelled_number): a finite float or
    nothing. Text spelling infinity once came out as an infinite figure the views printed."""
    db = open_database(tmp_path / "p.db")
    insert(
        db, "holdings", {"symbol": "600519", "name": "贵州茅台", "shares": 100, "cost": stored, "updated_at": RECENT}
    )
    db.conn.commit()
    assert math.isnan(InvestorStore(db).holding("600519").cost)
    builder = ContextBuilder(ConversationStore(db), InvestorStore(db), MemoryLimits(), clock=lambda: NOW)
    block, _, _ = builder.context_block("茅台 600519 怎么样", now=NOW)
    assert "100 股，成本 无效值" in block.text and "inf" not in block.text.lower()
    db.close()
