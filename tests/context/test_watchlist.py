"""The watch list reaches the model: a watched stock is named like a holding and its section
says it is watched; a question about the watch list gets the list. And stocks recorded
without a name are shown under the name pixiu knows. Real SQLite file, real builder."""

from __future__ import annotations

from datetime import datetime

import pytest

from pixiu_cli.account.handle import Account
from pixiu_cli.account.trades import NewTrade, record_trade
from pixiu_cli.conversation.context.builder import ContextBuilder
from pixiu_cli.conversation.context.memory_classes import MemoryLimits
from pixiu_cli.conversation.store import ConversationStore
from pixiu_cli.home.document_file import SHANGHAI
from pixiu_cli.home.store import InvestorStore
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.handle import Market
from pixiu_cli.market.service import watch, watchlist
from pixiu_cli.market.store import MarketStore

NOW = datetime(2026, 12, 1, 10, 15, tzinfo=SHANGHAI)


@pytest.fixture
def db(tmp_path):
    return open_database(tmp_path / "p.db")


def selected(db, text: str):
    builder = ContextBuilder(ConversationStore(db), InvestorStore(db), MemoryLimits(), clock=lambda: NOW)
    return builder.selected_block(text, now=NOW)


def test_a_watched_stock_named_in_passing_gets_its_section_like_a_holding(db):
    # 老百姓 (603883) is a three-character listed name: for a stock the user neither holds nor
    # watches it is an everyday word and needs more evidence
    block, selection = selected(db, "老百姓今天涨了")
    assert selection.symbols == []
    watch(Market(db), "603883", NOW)
    block, selection = selected(db, "老百姓今天涨了")
    assert selection.symbols == ["603883"]
    section = next(s for s in block.sections if s.key == "symbol:603883")
    assert section.title == "标的上下文：603883 老百姓"
    assert "持仓关联：未持有 · 在自选列表中（2026-12-01 加入）" in section.render()
    MarketStore(db).unwatch("603883")
    assert selected(db, "老百姓今天涨了")[1].symbols == []


def test_a_question_about_the_watch_list_gets_the_list_compactly(db):
    for code in ("300750", "603883"):
        watch(Market(db), code, NOW)
    block, _ = selected(db, "我的自选股最近怎么样")
    section = next(s for s in block.sections if s.key == "watchlist")
    assert section.title == "自选股（2 只）"
    lines = section.render().splitlines()
    assert any("300750 宁德时代 · 2026-12-01 加入" in line for line in lines)
    assert any("603883 老百姓 · 2026-12-01 加入" in line for line in lines)
    assert len(section.items) == 2  # one line per stock
    other, _ = selected(db, "今天大盘怎么样")
    assert "watchlist" not in {s.key for s in other.sections}


def test_a_holding_recorded_without_a_name_is_shown_under_the_known_name(db):
    record_trade(Account(db), NewTrade("600519", "buy", 1500, 100, None, None, "user"), "2026-11-30T10:00:00+08:00")
    block, _ = selected(db, "600519 怎么样")
    assert "## 标的上下文：600519 贵州茅台" in block.text
    assert "600519 贵州茅台 · 卫星仓" in block.text and "600519 600519" not in block.text


def test_watch_list_names_a_stock_the_master_does_not_hold(db):
    watch(Market(db), "300750", NOW)
    assert [(w.symbol, w.name) for w in watchlist(Market(db))] == [("300750", "宁德时代")]
