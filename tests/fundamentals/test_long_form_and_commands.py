"""The long forms `load_context` returns (every stored period and dividend of a stock, every
industry board of the stored session), /market and /fundamentals in the REPL, and that
reading what is stored imports none of the optional sources."""

from __future__ import annotations

import io
import json
import os
from datetime import datetime
from decimal import Decimal
from unittest import mock

import pytest

from pixiu_cli.app import open_app
from pixiu_cli.conversation.agent.tools import ToolArgumentError, ToolContext
from pixiu_cli.conversation.model_tools import model_tools
from pixiu_cli.kernel.render import Renderer
from pixiu_cli.kernel.settings import load_settings
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.calendar import SHANGHAI
from pixiu_cli.market.fundamentals.model import Dividend, FinancialReport, FundamentalsWrite, ValuationDay
from pixiu_cli.market.fundamentals.store import FundamentalsStore
from pixiu_cli.market.review.model import Breadth, IndustryMove, Snapshot
from pixiu_cli.market.review.store import MarketReviewStore
from pixiu_cli.memory.handle import Memory
from pixiu_cli.repl.loop import run_command
from pixiu_cli.repl.state import ReplState
from tests.helpers import clean_env, fresh_python

NOW = datetime(2026, 11, 30, 16, 0, tzinfo=SHANGHAI)
REPORTS = [
    FinancialReport("600519", p, "baostock", pub, revenue=Decimal(r), net_profit=Decimal(n))
    for p, pub, r, n in [
        ("2026-09-30", "2026-10-25", "130903889210.22", "66899448230.64"),
        ("2026-06-30", "2026-08-09", "86000000000", "45000000000"),
        ("2026-03-31", "2026-04-28", "50600000000", "26800000000"),
    ]
]
BOARDS = [(f"BK{i:04d}", f"行业{i}", Decimal(5 - i) / 100) for i in range(10)]


def store(db) -> None:
    days = (ValuationDay("600519", "2026-11-30", "baostock", Decimal("1450"), Decimal("22.5"), Decimal("8.2")),)
    dividends = (
        Dividend("600519", "baostock", "2026-04-03", "2026-06-26", cash=Decimal("28"), summary="10派280.00元（含税）"),
    )
    FundamentalsStore(db).write(
        FundamentalsWrite("600519", "baostock", "2026-11-30T16:00:00+08:00", days, tuple(REPORTS), dividends)
    )
    breadth = Breadth(
        "2026-11-30",
        "2026-11-30T16:00:00+08:00",
        "akshare.stock_zh_a_spot_em",
        True,
        5100,
        3000,
        1900,
        200,
        30,
        80,
        10,
        Decimal("1234500000000"),
    )
    industries = tuple(
        IndustryMove("2026-11-30", c, n, ch, 1, 1, None, None, "akshare.stock_board_industry_name_em", breadth.taken_at)
        for c, n, ch in BOARDS
    )
    MarketReviewStore(db).write(Snapshot(breadth, industries))


@pytest.fixture
def ctx(tmp_path):
    db = open_database(tmp_path / "pixiu.db")
    store(db)
    yield ToolContext(Memory(db), lambda: NOW)
    db.close()


def load_context(ctx, **args):
    return model_tools().get("load_context").handler(ctx, args).content


def test_the_long_form_of_a_stock_has_every_stored_period_and_dividend(ctx):
    content = load_context(ctx, topic="fundamentals", symbol="600519")["content"]
    for name in ("2026 三季报", "2026 中报", "2026 一季报"):
        assert f"基本面·财报 {name}" in content
    assert "「10派280.00元（含税）」，公告 2026-04-03，除权除息日 2026-06-26（来源 baostock）" in content
    assert load_context(ctx, topic="fundamentals", symbol="300750")["content"].startswith(
        "数据库中没有 300750 的估值和财报"
    )


def test_the_long_form_of_the_market_has_every_board(ctx):
    content = load_context(ctx, topic="market")["content"]
    assert all(f"- 行业{i} " in content for i in range(10))  # the section shows three each way
    assert "全部行业板块（2026-11-30，按涨跌幅）：" in content


def test_a_stock_topic_without_a_code_and_an_unknown_topic_say_what_is_wanted(ctx):
    with pytest.raises(ToolArgumentError, match="需要 symbol"):
        load_context(ctx, topic="fundamentals")
    with pytest.raises(ToolArgumentError, match="fundamentals, market"):
        load_context(ctx, topic="天气")


@pytest.fixture
def repl(tmp_path):
    with mock.patch.dict(os.environ, clean_env(tmp_path, PIXIU_NOW="2026-11-30T16:00:00"), clear=True):
        app = open_app(load_settings(force_offline=True))
    store(app.store.db)
    out = io.StringIO()
    renderer = Renderer(file=out, stderr=out, rich_output=False)
    renderer.console.width = 10_000
    yield ReplState(app=app, renderer=renderer), out
    app.close()


def test_market_and_fundamentals_in_the_repl(repl):
    state, out = repl
    run_command(state, "/market")
    assert "上涨 3,000 家，下跌 1,900 家" in out.getvalue() and "最强行业（2026-11-30" in out.getvalue()
    run_command(state, "/fundamentals 贵州茅台")  # a name, resolved by the one name matcher
    shown = out.getvalue()
    assert "600519 贵州茅台 · 基本面" in shown and "2026 三季报\t2026-10-25\t1,309.04 亿元" in shown
    run_command(state, "/fundamentals")
    assert "用法：/fundamentals 代码" in out.getvalue()


@pytest.mark.slow  # a new process (or a terminal) is what is checked: whole suite only
def test_reading_imports_no_optional_source(tmp_path):
    env = clean_env(tmp_path / "home", PIXIU_NOW="2026-11-30T16:00:00")
    code = (
        "import sys; from pixiu_cli.cli.root import main\n"
        "for args in (['market', '--json'], ['fundamentals', '600519', '--json']):\n"
        "    sys.argv = ['pixiu', *args]\n"
        "    main()\n"
        "print(sorted(m for m in ('pandas', 'akshare', 'baostock') if m in sys.modules))"
    )
    printed = fresh_python(code, env)
    assert printed.strip().splitlines()[-1] == "[]"
    assert json.loads(printed[: printed.index("\n}\n") + 2])["breadth"] is None
