"""The issue's done-when, end to end: import the real 美的集团 history, see `pixiu data
status`, ask about 美的集团 in the REPL and find the last close, the P&L on the holding and
the price's as-of date in /context, then draw /chart 000333."""

from __future__ import annotations

from pathlib import Path

import pytest

from pixiu_cli.conversation.offline.script import ScriptedReply
from tests.helpers import PROMPT, leave, pixiu_ok, repl_session, say

MARKET = Path(__file__).resolve().parents[1] / "fixtures" / "market"
VALUE_LINE = "收盘 79.06（2025-05-30 不复权"
PNL = "浮动盈亏 +18,560.00（+30.7%）"  # 1,000 × (79.06 − 60.50) on real prices


@pytest.mark.pty
@pytest.mark.slow
def test_import_status_ask_context_chart(server, online_env):
    pixiu_ok(online_env, "import", str(MARKET / "midea_holding.json"))
    pixiu_ok(
        online_env,
        "data",
        "import",
        str(MARKET / "000333.csv"),
        "--symbol",
        "000333",
        "--name",
        "美的集团",
        "--actions",
        str(MARKET / "000333_actions.csv"),
    )
    assert "000333\t美的集团\t2380\t2015-06-01\t2025-05-30" in pixiu_ok(online_env, "data", "status")

    with repl_session(online_env) as child:
        child.expect(PROMPT)
        server.enqueue(ScriptedReply(text="美的集团的回答。"))
        say(child, "美的集团最近怎么样")
        child.expect("美的集团的回答")
        child.expect(PROMPT)
        say(child, "/context --json")
        child.expect_exact(VALUE_LINE)
        child.expect_exact(PNL)
        child.expect(PROMPT)
        say(child, "/chart 000333 --days 120")
        child.expect_exact("000333 美的集团 · 2024-11-29 至 2025-05-30 · 收盘 79.06 · 成本 60.50")
        child.expect("MA60")
        child.expect(PROMPT)
        say(child, "/chart 600000")
        child.expect("没有 600000 的行情数据")
        child.expect(PROMPT)
        say(child, "/chart 000333 --days x")
        child.expect("--days 应为 5 到 5000 之间的整数，而不是 x")
        child.expect(PROMPT)
        leave(child)

    block = server.requests[-1].json["messages"][-2]["content"]
    holding = next(line for line in block.splitlines() if line.startswith("- ") and "000333 美的集团" in line)
    assert VALUE_LINE in holding and PNL in holding and "仓位" in holding
    assert "000002 万科A" in block and "无行情数据，按成本计市值 24,000" in block  # no bars: at cost, marked
    # every holding counts: 79,060 of 79,060 + 2,000 × 12.00 = 103,060 is 76.7%, not 100%;
    # HHI 0.767² + 0.233² = 0.64
    assert "集中度：最大仓位 000333 76.7%，前三 100.0%，HHI 0.64" in block
