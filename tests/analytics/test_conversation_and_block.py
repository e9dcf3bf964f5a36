"""A rule stated in conversation becomes an alert rule with a visible confirmation and undo,
and the decisions class carries each decision's outcome so far."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from pixiu_cli.account.store import PortfolioStore
from pixiu_cli.conversation.context.builder import SHANGHAI, ContextBuilder
from pixiu_cli.conversation.store import ConversationStore
from pixiu_cli.home.store import InvestorStore
from pixiu_cli.market.analytics.refresh import refresh
from pixiu_cli.market.handle import Market
from tests.helpers import PROMPT, leave, load, pixiu_ok, repl_session, say

HOLDING = {
    "holdings": [
        {"symbol": "000333", "name": "美的集团", "short_names": ["美的"], "shares": 1000, "cost": 60.5, "role": "core"}
    ]
}


@pytest.mark.pty
@pytest.mark.slow
def test_a_stated_stop_loss_becomes_an_alert_rule_and_forget_undoes_it(offline_env, tmp_path):
    data = tmp_path / "h.json"
    data.write_text(json.dumps(HOLDING, ensure_ascii=False), encoding="utf-8")
    pixiu_ok(offline_env, "import", str(data))
    out = json.loads(pixiu_ok(offline_env, "ask", "--json", "美的跌破70元就止损"))
    assert any(n.startswith("已设预警 a1：000333 美的集团 收盘跌破 70 元") for n in out["notices"]), out["notices"]
    (rule,) = json.loads(pixiu_ok(offline_env, "alert", "list", "--json"))
    assert (rule["id"], rule["symbol"], rule["kind"], rule["threshold"], rule["source"]) == (
        "a1",
        "000333",
        "below",
        70.0,
        "对话",
    )
    with repl_session(offline_env) as child:
        child.expect(PROMPT)
        say(child, "/forget a1")
        child.expect_exact("已撤销预警 a1")
        child.expect(PROMPT)
        say(child, "/forget a1")
        child.expect_exact("没有预警规则 a1")
        child.expect(PROMPT)
        leave(child)
    assert json.loads(pixiu_ok(offline_env, "alert", "list", "--json")) == []


def test_the_decisions_class_carries_the_outcome_so_far(db):
    load(db, "000333")
    domain = InvestorStore(db)
    now = datetime(2025, 5, 28, 16, 0, tzinfo=SHANGHAI)
    PortfolioStore(db).record_trade(
        symbol="000333",
        side="buy",
        price=77.0,
        quantity=100,
        reason="回踩买入",
        name="美的集团",
        at="2025-05-21T17:00:00+08:00",
        source="model",
    )
    refresh(Market(db), ["000333"], now)
    builder = ContextBuilder(ConversationStore(db), domain, clock=lambda: now)
    block, _, _ = builder.context_block("我最近的操作怎么样", now=now)
    line = next(line for line in block.text.splitlines() if "买入 000333" in line)
    # 5 sessions after 2025-05-21 is 2025-05-28, close 79.32 on a price of 77.00: +3.0%
    assert "买入后 5 日 +3.0%（按日线）" in line and "20 日" not in line
