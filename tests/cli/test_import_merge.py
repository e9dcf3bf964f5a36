"""`pixiu import` / `export` / `backup` / `restore` as a user runs them: the real console
script, a real database under PIXIU_HOME, and `pixiu ask` answered by the offline responder
(no key: the in-process offline server records notes and trades through the real tools)."""

from __future__ import annotations

import json
import math
import sqlite3
import subprocess
from pathlib import Path

import pytest

from tests.helpers import NOW, PIXIU_BIN, pixiu_for_result

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "small_portfolio.json"


@pytest.fixture
def offline_env(offline_env):
    """Pinned to a trading day (a Tuesday): a trade told for 今天 on a closed day is refused."""
    return {**offline_env, "PIXIU_NOW": NOW.isoformat()}


def pixiu(env, *args):
    return pixiu_for_result(env, *args)


def ok(env, *args):
    done = pixiu(env, *args)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done


def held(env, symbol: str, *flags: str) -> tuple[float, float] | None:
    """Shares and cost of a holding as the account derives them (`pixiu holdings --json`)."""
    record = json.loads(ok(env, "holdings", "--json", *flags).stdout)
    h = next((h for h in record["holdings"] if h["symbol"] == symbol), None)
    return None if h is None else (h["shares"], h["cost"])


def query(home: Path, sql: str):
    conn = sqlite3.connect(home / "pixiu.db")
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


@pytest.mark.slow
def test_reimport_keeps_what_was_said_in_conversation(offline_env, pixiu_home):
    """The reported data loss: import, a plan and a trade in conversation, the same import again."""
    ok(offline_env, "import", str(FIXTURE))
    assert "已记住" in ok(offline_env, "ask", "茅台跌破1500元加仓").stdout
    assert "持仓 2200 股" in ok(offline_env, "ask", "今天以 30 元买入海康威视 200 股").stdout
    again = ok(offline_env, "import", str(FIXTURE))
    assert query(
        pixiu_home,
        "select source from memory_events where kind = 'user_note' "
        "and text = '茅台跌破1500元加仓' and deleted_at is null",
    ) == [("model",)]
    assert query(pixiu_home, "select side, price, quantity, source from decisions where symbol = '002415'") == [
        ("buy", 30.0, 200.0, "model")
    ]
    assert held(offline_env, "002415")[0] == 2200.0
    lines = again.stdout.splitlines()
    assert "持仓（holdings）：新增 0，更新 0，保留不动 3（其中 1 只被对话中记录的交易改动过）" in lines
    assert "笔记（notes）：新增 0，更新 0，保留不动 5（其中对话中记下的 1 条，合并导入从不改动）" in lines
    assert "操作决策（decisions）：新增 0，更新 0，保留不动 3（其中对话中记下的 1 条，合并导入从不改动）" in lines
    assert "新闻（news）：新增 0，更新 0，保留不动 3" in lines
    warnings = again.stderr.splitlines()
    assert len(warnings) == 1 and "002415" in warnings[0] and "2000 股" in warnings[0] and "2200 股" in warnings[0]


@pytest.mark.slow
def test_a_file_dated_after_the_trade_wins_and_says_so(offline_env, pixiu_home, tmp_path):
    offline_env = dict(
        offline_env, PIXIU_NOW="2026-11-24T10:15:00"
    )  # the file is later the same day, not in the future
    ok(offline_env, "import", str(FIXTURE))
    ok(offline_env, "ask", "今天以 30 元买入海康威视 200 股")
    doc = json.loads(FIXTURE.read_text())
    doc["holdings"][1].update(shares=2500, cost=30.8, updated_at="2026-11-24T15:00:00+08:00")
    path = tmp_path / "broker.json"
    path.write_text(json.dumps(doc, ensure_ascii=False))
    done = ok(offline_env, "import", str(path))
    assert done.stderr == (
        "注意：持仓 002415 海康威视：导入文件为 2500 股，对话中记录的交易之后为 2200 股；"
        "文件的 updated_at 晚于最近一次交易，已按文件改为 2500 股\n"
    )
    assert "持仓（holdings）：新增 0，更新 1，保留不动 2（其中 1 只被对话中记录的交易改动过）" in done.stdout
    assert held(offline_env, "002415") == (2500.0, 30.8)


@pytest.mark.slow
def test_replace_backs_up_first_and_restore_brings_it_back(offline_env, pixiu_home):
    ok(offline_env, "import", str(FIXTURE))
    ok(offline_env, "ask", "茅台跌破1500元加仓")
    done = ok(offline_env, "import", "--replace", str(FIXTURE))
    backups = sorted((pixiu_home / "backups").glob("pixiu-*.db"))
    assert len(backups) == 1 and str(backups[0]) in done.stdout and "已备份" in done.stdout
    assert oct(backups[0].stat().st_mode & 0o777) == "0o600"
    assert query(pixiu_home, "select count(*) from memory_events where text = '茅台跌破1500元加仓'") == [(0,)]
    saved = sqlite3.connect(backups[0])
    assert saved.execute("select count(*) from memory_events where text = '茅台跌破1500元加仓'").fetchone() == (1,)
    assert saved.execute("pragma journal_mode").fetchone() == ("delete",)  # one self-contained file
    saved.close()
    reader = sqlite3.connect(pixiu_home / "pixiu.db")  # another process's open connection (WAL)
    assert reader.execute("select count(*) from holdings").fetchone() == (3,)
    done = ok(offline_env, "restore", str(backups[0]))
    assert "已先备份当前数据库" in done.stdout and len(list((pixiu_home / "backups").glob("pixiu-*.db"))) == 2
    assert reader.execute("select count(*) from memory_events where text = '茅台跌破1500元加仓'").fetchone() == (1,)
    assert reader.execute("pragma integrity_check").fetchone() == ("ok",)
    reader.close()
    assert query(pixiu_home, "pragma journal_mode") == [("wal",)]


@pytest.mark.slow
def test_backup_is_taken_through_sqlite_and_sees_what_is_only_in_the_wal(offline_env, pixiu_home):
    ok(offline_env, "import", str(FIXTURE))
    writer = sqlite3.connect(pixiu_home / "pixiu.db", isolation_level=None)
    writer.execute("pragma wal_autocheckpoint = 0")  # keep the change in pixiu.db-wal only
    writer.execute("insert into persona (key, value) values ('只在 WAL 里', '是')")
    done = ok(offline_env, "backup")
    writer.close()
    [saved] = (pixiu_home / "backups").glob("pixiu-*.db")
    assert str(saved) in done.stdout
    assert sqlite3.connect(saved).execute("select value from persona where key = '只在 WAL 里'").fetchone() == ("是",)


@pytest.mark.slow
def test_restore_refuses_what_is_not_a_pixiu_database(offline_env, pixiu_home, tmp_path):
    ok(offline_env, "import", str(FIXTURE))
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("create table t (x)")
    conn.commit()
    conn.close()
    truncated = tmp_path / "truncated.db"
    ok(offline_env, "backup")
    [good] = (pixiu_home / "backups").glob("pixiu-*.db")
    truncated.write_bytes(good.read_bytes()[:5000])
    for path, expected in (
        (tmp_path / "missing.db", "找不到备份文件"),
        (text, "不是 SQLite 数据库文件"),
        (other, "不是 pixiu 数据库"),
        (truncated, str(truncated)),
        (pixiu_home / "pixiu.db", "正在使用的数据库"),
    ):
        done = pixiu(offline_env, "restore", str(path))
        assert done.returncode == 1 and expected in done.stderr, (path, done.stderr)
        assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
    assert query(pixiu_home, "select count(*) from holdings") == [(3,)]
    assert len(list((pixiu_home / "backups").glob("pixiu-*.db"))) == 1  # nothing backed up for a refused file


@pytest.mark.slow
def test_disguised_symbols_are_one_stock(offline_env, pixiu_home, tmp_path):
    doc = json.loads(FIXTURE.read_text())
    doc["holdings"][0]["symbol"] = "６００５１９"
    doc["news"][0]["symbol"] = "٠٠٢٤١٥"
    doc["notes"][0]["symbol"] = "002415\n"
    doc["reports"][0]["symbols"] = [" ６００５１９ ", "３００７５０"]
    doc["decisions"][0]["symbol"] = "३००७५०"
    doc["alerts"][0]["symbol"] = "\u3000002415"
    path = tmp_path / "disguised.json"
    path.write_text(json.dumps(doc, ensure_ascii=False))
    ok(offline_env, "import", str(path))
    assert query(pixiu_home, "select symbol from holdings order by symbol") == [("002415",), ("300750",), ("600519",)]
    for table in ("news", "decisions", "alerts", "memory_events"):
        symbols = {s for (s,) in query(pixiu_home, f"select symbol from {table} where symbol is not null")}
        assert symbols <= {"600519", "002415", "300750"}, (table, symbols)
    assert ('["600519", "300750"]',) in query(pixiu_home, "select symbols from reports")
    doc["holdings"].append(dict(doc["holdings"][0], symbol="٦٠٠٥١٩"))
    path.write_text(json.dumps(doc, ensure_ascii=False))
    done = pixiu(offline_env, "import", str(path))
    assert (
        done.returncode == 1 and done.stderr == "错误：导入失败，未做任何修改：holdings[3].symbol：重复的持仓 600519\n"
    )


@pytest.mark.slow
def test_non_finite_numbers_are_refused_naming_field_and_row(offline_env, pixiu_home, tmp_path):
    ok(offline_env, "import", str(FIXTURE))
    text = FIXTURE.read_text()
    cases = {
        '"cost": 188.0': ("NaN", "holdings[2].cost"),
        '"price": 190.0': ("Infinity", "decisions[0].price"),
        '"score": -0.35': ("-1e999", "signals[0].score"),
        '"资金": -0.2': ("1e999", "signals[0].components.资金"),
        '"风险偏好": "稳健"': ("NaN", "persona.风险偏好"),
    }
    for field, (bad, where) in cases.items():
        key = field.split(":")[0]
        path = tmp_path / "bad.json"
        path.write_text(text.replace(field, f"{key}: {bad}"))
        done = pixiu(offline_env, "import", str(path))
        assert done.returncode == 1 and done.stderr.startswith(f"错误：导入失败，未做任何修改：{where}："), done.stderr
        assert "有限数字" in done.stderr and len(done.stderr.splitlines()) == 1
    assert query(pixiu_home, "select cost from holdings where symbol = '300750'") == [(188.0,)]


def strict_json(text: str):
    def refuse(name):
        raise AssertionError(f"export wrote {name}")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.slow
def test_export_never_writes_nan_or_infinity_and_always_reimports(offline_env, pixiu_home, tmp_path):
    ok(offline_env, "import", str(FIXTURE))
    conn = sqlite3.connect(pixiu_home / "pixiu.db")
    conn.execute("update holdings set cost = 9e999 where symbol = '300750'")  # what a 1e999 price once stored
    conn.execute("update holdings set cost = null where symbol = '600519'")  # what a NaN price once stored
    conn.execute("update profiles set sharpe = -9e999 where symbol = '002415'")
    conn.execute('update signals set components = \'{"趋势": NaN, "资金": Infinity}\'')
    conn.commit()
    conn.close()
    assert query(pixiu_home, "select cost from holdings where symbol = '300750'") == [(math.inf,)]
    done = ok(offline_env, "export")
    doc = strict_json(done.stdout)
    assert [h["symbol"] for h in doc["holdings"]] == ["002415"]
    assert "sharpe" not in doc["profiles"][1] and doc["signals"][0]["components"] == {"趋势": None, "资金": None}
    notes = done.stderr.splitlines()
    assert any("holdings[" in n and "cost" in n and "未导出" in n for n in notes), notes
    assert any("profiles[1].sharpe" in n and "null" in n for n in notes), notes
    assert any("signals[0].components.资金" in n for n in notes), notes
    out = tmp_path / "out.json"
    ok(offline_env, "export", "-o", str(out))
    strict_json(out.read_text())
    fresh = dict(offline_env, PIXIU_HOME=str(tmp_path / "fresh-home"))
    ok(fresh, "import", str(out))
    assert strict_json(ok(fresh, "export").stdout) == doc


@pytest.mark.slow
def test_demo_refresh_keeps_trades_made_in_conversation(offline_env, pixiu_home):
    """The demo is re-imported on every start (its dates are relative): a trade recorded in
    conversation must survive it, and keep its effect on the holding."""
    assert "持仓 3200 股" in ok(offline_env, "ask", "--demo", "今天以 30 元买入海康威视 200 股").stdout
    ok(offline_env, "ask", "--demo", "今天的新闻有哪些")  # a new process: the demo is refreshed
    # the stated 3,000 @ 33.80 and the 200 @ 30 told in conversation with its estimated fee (the
    # minimum commission 5 and the transfer fee 0.06): (101,400 + 6,000 + 5.06) / 3,200 = 33.5641
    assert held(offline_env, "002415", "--demo") == (3200.0, 33.5641)
    conn = sqlite3.connect(pixiu_home / "demo.db")
    assert conn.execute("select side, price, quantity from decisions where source = 'model'").fetchall() == [
        ("buy", 30.0, 200.0)
    ]
    conn.close()
    assert "持仓 3300 股" in ok(offline_env, "ask", "--demo", "今天以 30 元买入海康威视 100 股").stdout


@pytest.mark.slow
def test_replace_without_a_backup_replaces_nothing(offline_env, pixiu_home, tmp_path):
    ok(offline_env, "import", str(FIXTURE))
    ok(offline_env, "ask", "茅台跌破1500元加仓")
    broken = tmp_path / "broken.json"
    broken.write_text('{"holdings": [')
    done = pixiu(offline_env, "import", "--replace", str(broken))
    assert done.returncode == 1 and "未做任何修改" in done.stderr and len(done.stderr.splitlines()) == 1
    assert not (pixiu_home / "backups").exists()  # a bad file is refused before anything else
    (pixiu_home / "backups").write_text("not a directory")
    done = pixiu(offline_env, "import", "--replace", str(FIXTURE))
    assert (
        done.returncode == 1 and done.stderr.startswith("错误：无法写入备份到 ") and len(done.stderr.splitlines()) == 1
    )
    assert query(pixiu_home, "select count(*) from memory_events where text = '茅台跌破1500元加仓'") == [(1,)]


@pytest.mark.slow
def test_a_process_that_cached_the_holdings_sees_the_restored_ones(offline_env, pixiu_home):
    from pixiu_cli.home.store import InvestorStore
    from pixiu_cli.kernel.store.database import open_database

    ok(offline_env, "import", str(FIXTURE))
    ok(offline_env, "backup")
    [saved] = (pixiu_home / "backups").glob("pixiu-*.db")
    db = open_database(pixiu_home / "pixiu.db")  # a REPL's connection, kept open throughout
    domain = InvestorStore(db)
    db.execute("delete from holdings where symbol = '300750'")
    assert len(domain.holdings()) == 2  # read, and kept while the version counter stands still
    version = db.execute("select version from portfolio_version").fetchone()[0]
    other = sqlite3.connect(saved)  # a backup from another history whose counter is the same
    other.execute("update portfolio_version set version = ?", [version])
    other.commit()
    other.close()
    ok(offline_env, "restore", str(saved))
    assert [h.symbol for h in domain.holdings()] == ["600519", "002415", "300750"]
    db.close()


@pytest.mark.slow
def test_imports_while_trades_are_recorded_lose_nothing(offline_env, pixiu_home):
    """Real processes: each round starts an import and a trade in conversation at once; the
    write lock orders them, and whichever goes first, the trade and its holding survive."""
    ok(offline_env, "import", str(FIXTURE))
    for round_ in range(1, 4):
        importer = subprocess.Popen(
            [PIXIU_BIN, "import", str(FIXTURE)],
            env=offline_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        trade = ok(offline_env, "ask", "今天以 30 元买入海康威视 100 股")
        out, err = importer.communicate(timeout=60)
        assert importer.returncode == 0, err
        assert f"持仓 {2000 + 100 * round_} 股" in trade.stdout
        assert query(pixiu_home, "select count(*) from decisions where source = 'model'") == [(round_,)]
        assert held(offline_env, "002415")[0] == 2000.0 + 100 * round_


def test_a_forgotten_imported_note_is_not_called_a_conversation_note(offline_env, pixiu_home):
    from pixiu_cli.kernel.store.database import open_database
    from pixiu_cli.memory.store import MemoryStore
    from tests.helpers import FIXTURE, pixiu_in_process

    assert pixiu_in_process(offline_env, "import", str(FIXTURE)).returncode == 0
    memory = MemoryStore(open_database(pixiu_home / "pixiu.db"))
    imported = memory.search(kind="plan")[0]
    memory.forget(imported.id, "2026-11-30T10:00:00+08:00")
    again = pixiu_in_process(offline_env, "import", str(FIXTURE), text=True)
    line = next(line for line in (again.stdout + again.stderr).splitlines() if "（notes）" in line)
    assert "你删除过的 1 条" in line and "对话中记下的" not in line
