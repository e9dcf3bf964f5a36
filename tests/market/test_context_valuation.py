"""The holdings section of the context block, valued on stored real prices."""

from __future__ import annotations

from datetime import datetime

from pixiu_cli.account.handle import Account
from pixiu_cli.conversation.context.builder import SHANGHAI, ContextBuilder
from pixiu_cli.conversation.store import ConversationStore
from pixiu_cli.home.store import InvestorStore
from tests.helpers import MARKET_FIXTURES as FIXTURES
from tests.helpers import load

NOW = datetime(2016, 5, 6, 16, 0, tzinfo=SHANGHAI)


def _holdings(db, rows):
    db["holdings"].insert_all(
        [
            {"symbol": s, "name": n, "short_names": "[]", "shares": q, "cost": c, "role": "core", "updated_at": at}
            for s, n, q, c, at in rows
        ]
    )


def _block(db, valued=True):
    builder = ContextBuilder(ConversationStore(db), InvestorStore(db), account=Account(db) if valued else None)
    return builder.context_block("美的集团最近怎么样", now=NOW)[0].text


def test_holdings_line_after_a_bonus_issue(db, tmp_path):
    lines = (FIXTURES / "000333.csv").read_text().splitlines()
    path = tmp_path / "to_ex_day.csv"
    path.write_text("\n".join([lines[0]] + [x for x in lines[1:] if x[:10] <= "2016-05-06"]) + "\n")
    load(db, "000333", path=path)
    _holdings(
        db,
        [
            ("000333", "美的集团", 1000, 30.0, "2016-04-01T10:00:00+08:00"),
            ("600519", "贵州茅台", 100, 200.0, "2016-04-01T10:00:00+08:00"),
        ],
    )
    block = _block(db)
    line = next(x for x in block.splitlines() if "000333 美的集团" in x and x.startswith("- ["))
    # 10派12转增5 on 2016-05-06: 1,000 → 1,500 shares and 1,200 paid; 1,500 × 20.35 = 30,525;
    # unrealised against the average cost 30,525 − 30,000 = +525 (+1.8%), the dividend realised;
    # the diluted cost (30,000 − 1,200) / 1,500 = 19.20. 贵州茅台 has no bars: valued at cost,
    # 100 × 200 = 20,000, so 美的 is 30,525 / 50,525 = 60.4% of the stocks (not 100%)
    assert "000333 美的集团 · 核心仓 · 1,500 股 · 成本 19.20" in line
    assert (
        "收盘 20.35（2016-05-06 不复权） · 含送转 500 股 · 已派现 1,200 · 市值 30,525 · "
        "浮动盈亏 +525.00（+1.8%） · 已实现 +1,200.00 · 仓位 60.4%"
    ) in line
    assert "600519 贵州茅台 · 核心仓 · 100 股 · 成本 200.00 · 无行情数据，按成本计市值 20,000 · 仓位 39.6%" in block
    # HHI = 0.604² + 0.396² = 0.365 + 0.157 = 0.52
    assert (
        "股票市值 50,525.00（全部持仓，其中 1 只无行情按成本计；现金未知，仓位按股票市值计）；成本为摊薄成本" in block
    )
    assert "集中度：最大仓位 000333 60.4%，前三 100.0%，HHI 0.52（按股票市值）" in block


def test_without_market_data_the_block_is_unchanged(db):
    _holdings(db, [("000333", "美的集团", 1000, 30.0, "2016-04-01T10:00:00+08:00")])
    assert _block(db, valued=True) == _block(db, valued=False)
    assert "无行情数据" not in _block(db)


def test_stale_price_says_how_many_sessions_old(db):
    load(db, "000333")
    _holdings(db, [("000333", "美的集团", 1000, 60.5, "2025-01-02T10:00:00+08:00")])
    builder = ContextBuilder(ConversationStore(db), InvestorStore(db), account=Account(db))
    block = builder.context_block("美的集团", now=datetime(2025, 6, 5, 16, 0, tzinfo=SHANGHAI))[0].text
    # 2025-05-30 (Fri) → 06-03, 06-04, 06-05 after 端午 (06-02): three sessions
    assert "收盘 79.06（2025-05-30 不复权，已过期 3 个交易日）" in block
