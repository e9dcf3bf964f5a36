"""The block for the account's classes (issue 38): the ledger's trade history with realised
P&L over the window a time word names, windows widened or moved (and said so), a named
stock's plans whatever their age, the holdings' news together, the watch list asked about
without the word 自选. Real SQLite files through the product's builder and valuation."""

from __future__ import annotations

from datetime import datetime

import pytest

from pixiu_cli.account.handle import Account
from pixiu_cli.conversation.context.builder import ContextBuilder
from pixiu_cli.conversation.context.memory_classes import MemoryLimits
from pixiu_cli.conversation.store import ConversationStore
from pixiu_cli.home.document_file import parse_document
from pixiu_cli.home.store import InvestorStore
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.calendar import SHANGHAI
from pixiu_cli.market.store import MarketStore
from tests.helpers import fill_row

NOW = datetime(2026, 11, 25, 20, 30, tzinfo=SHANGHAI)  # a Wednesday evening
STAMP = "2026-11-24T16:00:00+08:00"
HOLDINGS = [
    {"symbol": "000333", "name": "美的集团", "short_names": ["美的"], "shares": 300, "cost": 10, "role": "core"},
    {"symbol": "600941", "name": "中国移动", "short_names": ["移动"], "shares": 100, "cost": 90, "role": "core"},
]


# 000333: 1,000 bought at 10.00 with 5.00 of fees (10,005.00 in), 400 sold on 10-15 at 12.00
# with 9.60 of fees, 300 sold on 11-20 at 13.00 with 7.80. 600941: 100 bought, all sold on 10-20.
FILLS = [
    fill_row("f1", "2026-09-01", "buy", "000333", 1000, 10.0, 5.0),
    fill_row("f2", "2026-10-15", "sell", "000333", 400, 12.0, 9.6, decision_id=1),
    fill_row("f3", "2026-11-20", "sell", "000333", 300, 13.0, 7.8),
    fill_row("f4", "2026-09-10", "buy", "600941", 100, 90.0, 5.0),
    fill_row("f5", "2026-10-20", "sell", "600941", 100, 95.0, 9.5),
]
DOCUMENT = {
    "holdings": [{**h, "basis": "ledger", "updated_at": STAMP} for h in HOLDINGS],
    "decisions": [
        {
            "id": 1,
            "symbol": "000333",
            "side": "sell",
            "price": 12.0,
            "quantity": 400,
            "reason": "冲高先减",
            "decided_at": "2026-10-15T10:00:00+08:00",
        }
    ],
    "account": {"fills": FILLS, "cash": [{"amount": 5000, "as_of": "2026-11-21", "source": "statement"}]},
    "reports": [
        {
            "title": "每日简报 2026-11-16 收盘",
            "conclusion": "美的减仓后仓位回落",
            "created_at": "2026-11-16T19:00:00+08:00",
        },
        {"title": "每日简报 2026-11-24 收盘", "conclusion": "组合小幅上涨", "created_at": "2026-11-24T19:00:00+08:00"},
    ],
    "notes": [
        {"kind": "plan", "symbol": "000333", "text": "美的跌破9元减半", "created_at": "2026-08-01T20:00:00+08:00"}
    ],
    "news": [
        {"symbol": "000333", "title": "美的集团：回购进展公告", "published_at": "2026-11-22T18:00:00+08:00"},
        {"symbol": "600941", "title": "中国移动：10月客户数据公告", "published_at": "2026-11-19T18:00:00+08:00"},
    ],
}


@pytest.fixture
def builder(tmp_path):
    db = open_database(tmp_path / "pixiu.db")
    InvestorStore(db).replace_all(parse_document(DOCUMENT, NOW))
    MarketStore(db).watch("600809", "2026-10-01T09:00:00+08:00")
    yield ContextBuilder(
        ConversationStore(db), InvestorStore(db), MemoryLimits(), clock=lambda: NOW, account=Account(db)
    )
    db.conn.close()


def _block(builder, text, earlier=()):
    block, selection = builder.selected_block(text, now=NOW, earlier=list(earlier))
    return block, selection


def test_last_months_trades_with_fees_reasons_and_what_they_realised(builder):
    block, selection = _block(builder, "上个月卖了哪些")
    assert selection.targets == ("trades",) and "trades" in [s.key for s in block.sections]
    assert (
        "- [事实 · 2026-10-15] 卖出 000333 美的集团 400 股 @ 12.00，费用 9.60，理由 「冲高先减」（对账单）"
        in block.text
    )
    assert "- [事实 · 2026-10-20] 卖出 600941 中国移动 100 股 @ 95.00，费用 9.50（对账单）" in block.text
    # realised in October: 美的 4,800 − 9.60 − 10,005 × 400/1,000 = 4,790.40 − 4,002.00 = +788.40;
    # 移动 9,500 − 9.50 − (9,000 + 5.00) = +485.50, the position closed; together +1,273.90
    assert (
        "期间已实现盈亏（卖出相对持仓均价，含分红）：000333 美的集团 +788.40；600941 中国移动 +485.50（已清仓）；合计 +1,273.90"
        in block.text
    )
    assert "[事实 · 2026-11-20] 卖出" not in block.text  # the window moved to October: November's sale is not listed
    assert "（窗口按“上个月”移到 2026-10-01 至 2026-10-31，最多 20 条）" in block.text


def test_a_period_reaching_into_the_window_widens_it(builder):
    block, selection = _block(builder, "这周卖了什么")
    # this week is 11-23 to 11-25; the trades' 7 days reach back to 11-18: the sale of 11-20 stays
    assert "- [事实 · 2026-11-20] 卖出 000333 美的集团 300 股 @ 13.00，费用 7.80（对账单）" in block.text
    whys = [w.why for w in selection.windows]
    assert whys[0] == "时间词“这周”（2026-11-23 至 2026-11-25）：成交记录的窗口不变，已在平时的近 7 天内"


def test_a_named_closed_position_gets_all_its_trades(builder):
    block, selection = _block(builder, "移动清仓那笔赚了多少")
    assert selection.symbols == ["600941"] and selection.intent.value == "trade_review"
    assert "- [事实 · 2026-09-10] 买入 600941 中国移动 100 股 @ 90.00，费用 5.00（对账单）" in block.text
    assert "期间已实现盈亏（卖出相对持仓均价，含分红）：600941 中国移动 +485.50（已清仓）；合计 +485.50" in block.text


def test_an_older_brief_moves_the_reports_window_and_the_explanation_says_so(builder):
    block, selection = _block(builder, "上周一的简报说了什么")
    assert "「美的减仓后仓位回落」" in block.text and "「组合小幅上涨」" not in block.text
    [move] = selection.windows
    assert (
        move.why
        == "时间词“上周一”（2026-11-16 至 2026-11-16）：报告结论的窗口移到 2026-11-16 至 2026-11-16（平时为近 3 天）"
    )
    assert selection.explanation()["windows"][0]["why"] == move.why


def test_a_named_stocks_plan_is_found_whatever_its_age(builder):
    block, _ = _block(builder, "美的的计划是什么")
    # written on 08-01, 116 days ago: outside the notes' 30 days, in the stock's section
    assert "计划（000333）：「美的跌破9元减半」" in block.text


def test_a_question_about_the_holdings_news_gets_each_holdings_news(builder):
    block, selection = _block(builder, "我的票最近都有什么公告")
    assert selection.overview and "news" in [s.key for s in block.sections]
    assert "000333 美的集团 动态：「美的集团：回购进展公告」" in block.text
    assert "10月客户数据公告" not in block.text  # 600941 was sold out of: no holding of the user's now


def test_the_watch_list_asked_about_without_its_word(builder):
    block, selection = _block(builder, "我关注的那几只最近怎么样")
    assert selection.intent.value == "general" and not selection.overview
    assert "watchlist" in [s.key for s in block.sections] and "600809 山西汾酒" in block.text
    block, _ = _block(builder, "什么是自选股")  # knowledge: not the user's list
    assert "watchlist" not in [s.key for s in block.sections]


def test_a_follow_up_on_a_brief_points_at_the_stock_it_named(builder):
    _, selection = _block(builder, "它还能拿吗", ["上周一的简报说了什么"])
    assert selection.symbols == ["000333"]
    assert selection.carried[0].via == "简报「每日简报 2026-11-16 收盘」点名"
