"""A sync that fails (the source's library missing here) says so in one line, what failed and
what was kept, and exits 1; what was stored stays; and since nothing changed, nothing is
re-scored: no "已为 N 条操作决策计算事后表现" after a sync that fetched nothing, in `pixiu data
sync` and in the REPL's /sync alike."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
from datetime import datetime
from unittest import mock

import pytest

from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.analytics.refresh import RefreshSummary, refresh
from pixiu_cli.market.handle import Market
from tests.helpers import MARKET_FIXTURES, clean_env, in_process_ok, pixiu_in_process

IMPORTED = "2025-06-03T16:00"
SYNCED = "2025-06-04T16:00"  # a day later: a re-scoring would stamp the decisions anew


@pytest.fixture
def scored_home(tmp_path, monkeypatch):
    """000333's bars, a buy and a sell of it, and their scores (the import after the trades)."""
    monkeypatch.setitem(sys.modules, "baostock", None)  # `import baostock` fails: not installed
    home = tmp_path / "home"
    env = clean_env(home, PIXIU_NOW=IMPORTED)
    in_process_ok(env, "trade", "buy", "000333", "100", "70", "--date", "2025-03-03")
    in_process_ok(env, "trade", "sell", "000333", "100", "75", "--date", "2025-04-01")
    imported = in_process_ok(env, "data", "import", str(MARKET_FIXTURES / "000333.csv"), "--symbol", "000333")
    assert "已为 2 条操作决策计算事后表现" in imported  # both have 20 sessions after them
    return home


def _scores(home) -> list[tuple]:
    db = sqlite3.connect(home / "pixiu.db")
    try:
        return db.execute("select id, scored_at, return_5d from decisions order by id").fetchall()
    finally:
        db.close()


def test_a_failed_data_sync_is_one_line_exits_1_and_rescores_nothing(scored_home):
    before = _scores(scored_home)
    assert len(before) == 2 and all(scored for _, scored, _ in before)
    done = pixiu_in_process(clean_env(scored_home, PIXIU_NOW=SYNCED), "data", "sync", "000333", text=True)
    assert done.returncode == 1
    assert done.stdout == ""  # no line per stock that got nothing, no recomputation
    assert done.stderr == (
        "错误：数据源 baostock 同步失败（1 只）：baostock 未安装：pip install 'pixiu-cli[baostock]'；"
        "已保留本地数据并标记为过期；画像、信号、预警与操作表现都未重新计算\n"
    )
    assert _scores(scored_home) == before  # not re-scored (stamped SYNCED) when nothing changed


def test_the_repl_sync_that_fetched_nothing_rescores_nothing(scored_home):
    from pixiu_cli.app import open_app
    from pixiu_cli.kernel.render import Renderer
    from pixiu_cli.kernel.settings import load_settings
    from pixiu_cli.repl.loop import run_command
    from pixiu_cli.repl.state import ReplState

    before = _scores(scored_home)
    with mock.patch.dict(os.environ, clean_env(scored_home, PIXIU_NOW=SYNCED), clear=True):
        app = open_app(load_settings(force_offline=True))
    out = io.StringIO()
    try:
        run_command(ReplState(app=app, renderer=Renderer(file=out, stderr=out, rich_output=False)), "/sync")
    finally:
        app.close()
    said = out.getvalue()
    assert "事后表现" not in said and "同步失败" in said and "已保留本地数据" in said, said
    assert _scores(scored_home) == before


def test_a_refresh_of_no_symbols_touches_nothing(scored_home):
    db = open_database(scored_home / "pixiu.db")
    try:
        summary = refresh(Market(db), [], datetime.fromisoformat(SYNCED + ":00+08:00"))
    finally:
        db.close()
    assert summary == RefreshSummary()
    assert _scores(scored_home)[0][1].startswith("2025-06-03")  # scored at the import, not now


class _Counted:
    """Wraps the per-symbol and per-decision work of a refresh, counting its calls."""

    def __init__(self, monkeypatch):
        import pixiu_cli.market.analytics.refresh as module

        self.frames, self.scores = [], 0
        real_load, real_score = module.load_frame, module.score

        def load(market, symbol, now, since=None):
            self.frames.append(symbol)
            return real_load(market, symbol, now, since=since)

        def score(*args):
            self.scores += 1
            return real_score(*args)

        monkeypatch.setattr(module, "load_frame", load)
        monkeypatch.setattr(module, "score", score)


def _stand_in_baostock(files: dict[str, str], reachable: bool = True):
    """tests/helpers.py's baostock stand-in as a module; unreachable: login fails as it does
    with no network."""
    import types

    from tests.helpers import FAKE_BAOSTOCK_BY_CODE

    module = types.ModuleType("baostock")
    exec(FAKE_BAOSTOCK_BY_CODE, module.__dict__)
    if not reachable:

        def login():
            raise OSError(101, "Network is unreachable")

        module.login = login
    return module


def test_a_sync_with_no_network_rescores_no_decision_and_says_so(scored_home, monkeypatch):
    counted = _Counted(monkeypatch)
    monkeypatch.setitem(sys.modules, "baostock", _stand_in_baostock({}, reachable=False))
    env = dict(clean_env(scored_home, PIXIU_NOW=SYNCED), FAKE_BAOSTOCK_FILES="{}")
    before = _scores(scored_home)
    done = pixiu_in_process(env, "data", "sync", text=True)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Network is unreachable" in done.stderr
    assert done.stderr.rstrip().endswith("画像、信号、预警与操作表现都未重新计算"), done.stderr
    assert (counted.frames, counted.scores) == ([], 0)  # 2 decisions stored, none re-scored
    assert _scores(scored_home) == before


def test_a_sync_that_fetched_nothing_new_rescores_nothing_and_says_so(scored_home, monkeypatch):
    counted = _Counted(monkeypatch)
    monkeypatch.setitem(sys.modules, "baostock", _stand_in_baostock({}))
    env = dict(clean_env(scored_home, PIXIU_NOW=SYNCED), FAKE_BAOSTOCK_FILES="{}")  # serves no bar
    done = pixiu_in_process(env, "data", "sync", "000333", text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["000333：新增 0 条", "没有新的日线：画像、信号、预警与操作表现都未重新计算"]
    assert (counted.frames, counted.scores) == ([], 0)


def test_a_sync_that_got_bars_for_one_symbol_rescores_that_symbols_decisions_only(scored_home, monkeypatch, tmp_path):
    in_process_ok(
        clean_env(scored_home, PIXIU_NOW=IMPORTED), "trade", "buy", "000001", "100", "12", "--date", "2025-03-03"
    )
    counted = _Counted(monkeypatch)
    monkeypatch.setitem(sys.modules, "baostock", _stand_in_baostock({}))
    served = json.dumps({"sz.000001": str(MARKET_FIXTURES / "000002.csv")})  # any real bars up to 2025-05-30
    env = dict(clean_env(scored_home, PIXIU_NOW=SYNCED), FAKE_BAOSTOCK_FILES=served)
    done = pixiu_in_process(env, "data", "sync", "000333", "000001", text=True)
    assert done.returncode == 0, done.stderr
    assert "000333：新增 0 条" in done.stdout and "000001：新增" in done.stdout
    # 000001's profile and signal read one frame, its one decision another; 000333's two are not touched
    assert set(counted.frames) == {"000001"} and counted.scores == 1, (counted.frames, counted.scores)


def test_a_failed_news_sync_is_one_line_naming_how_many_and_what_was_kept(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "akshare", None)
    env = clean_env(tmp_path / "home", PIXIU_NOW=IMPORTED)
    in_process_ok(env, "import", "tests/fixtures/small_portfolio.json")  # 600519, 002415, 300750
    done = pixiu_in_process(env, "news", "sync", text=True)
    assert done.returncode == 1
    assert done.stdout == ""  # no "取得 0 条" for each stock
    assert done.stderr == (
        "错误：新闻同步失败（3 只股票）：akshare 未安装：pip install 'pixiu-cli[akshare]'；"
        "已保留本地数据，本次没有新增条目\n"
    )


OFFLINE_BAOSTOCK = 'def login():\n    raise OSError(101, "Network is unreachable")\n\n\ndef logout():\n    pass\n'


@pytest.mark.slow  # a new process (or a terminal) is what is checked: whole suite only
def test_a_sync_with_no_network_loads_no_analytics_numpy_or_pandas(scored_home, tmp_path):
    """The process the user waits for: what it imports is what it costs (sqlite-utils loads
    pandas and numpy when it is imported before pixiu_cli.kernel.store hides them; typer's parsing
    pydantic; the error line rich; the daily sync's views the fundamentals, review and push)."""
    package = tmp_path / "offline" / "baostock"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(OFFLINE_BAOSTOCK, encoding="utf-8")
    env = dict(clean_env(scored_home, PIXIU_NOW=SYNCED), PYTHONPATH=str(package.parent))
    heavy = (
        "numpy",
        "pandas",
        "pixiu_cli.market.analytics.refresh",
        "pydantic",
        "rich.console",
        "pixiu_cli.market.fundamentals.views",
        "pixiu_cli.market.review.breadth",
        "pixiu_cli.brief.push.deliver",
    )
    script = (
        "import sys, atexit\n"
        "sys.argv = ['pixiu', 'data', 'sync']\n"
        f"atexit.register(lambda: print('LOADED', *[m for m in {heavy!r} if m in sys.modules], file=sys.stderr))\n"
        "from pixiu_cli.cli import main\n"
        "main()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    failure, loaded = done.stderr.splitlines()
    assert done.returncode == 1 and "Network is unreachable" in failure, done.stderr
    assert loaded == "LOADED", loaded
