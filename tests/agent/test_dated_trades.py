"""The account through the tools: `record_decision` with the day the user named ("我2025年3月3日
以70元买了500股美的" is stamped 2025-03-03, not today; a day after today is refused back to
the model) and its fees; `get_holdings` with the cash."""

from __future__ import annotations

import json

import pytest

from pixiu_cli.account.handle import Account
from pixiu_cli.conversation.offline.script import ScriptedReply, planned_tool_calls
from tests.helpers import call, tool_messages


def _decisions(domain):
    sql = "select symbol, side, quantity, price, decided_at, id from decisions where source = 'model'"
    return domain.db.execute(sql).fetchall()


@pytest.mark.parametrize(
    "words, day", [("2025-03-03", "2025-03-03"), ("2025年3月3日", "2025-03-03"), ("昨天", None), ("3月3日", None)]
)
def test_the_day_the_user_named_is_the_decisions_day(rig, model, words, day):
    make, store, domain, ctx = rig
    agent, conv = make()
    args = {"symbol": "000333", "side": "buy", "price": 70, "quantity": 500, "name": "美的集团", "date": words}
    model.enqueue(ScriptedReply(tool_calls=[call("record_decision", args)]), ScriptedReply(text="已记录"))
    result = agent.run_turn(conv, f"我{words}以70元买了500股美的")
    today = ctx.now().date()
    expected = {
        "昨天": today.fromordinal(today.toordinal() - 1).isoformat(),
        "3月3日": f"{today.year if (today.month, today.day) >= (3, 3) else today.year - 1}-03-03",
    }.get(words, day)
    (row,) = _decisions(domain)
    assert row[:4] == ("000333", "buy", 500, 70) and row[4].startswith(expected)
    tools, _ = tool_messages(store, conv)
    assert json.loads(tools[0]["content"])["date"] == expected
    assert f"已记录 #d{row[5]}：{expected} 买入 000333 500 股 @ 70" in result.notices[0]


def test_a_future_day_goes_back_to_the_model_and_nothing_is_written(rig, model):
    make, store, domain, ctx = rig
    agent, conv = make()
    tomorrow = ctx.now().date().fromordinal(ctx.now().date().toordinal() + 1).isoformat()
    args = {"symbol": "000333", "side": "buy", "price": 70, "quantity": 500, "date": tomorrow}
    model.enqueue(ScriptedReply(tool_calls=[call("record_decision", args)]), ScriptedReply(text="不能记录"))
    agent.run_turn(conv, "明天 70 元买美的 500 股")
    tools, _ = tool_messages(store, conv)
    assert "不能记录未来的交易" in json.loads(tools[0]["content"])["error"]
    assert _decisions(domain) == []


def test_fees_count_in_the_cost(rig, model):
    make, store, domain, ctx = rig
    agent, conv = make()
    args = {"symbol": "000333", "side": "buy", "price": 70, "quantity": 500, "fee": 5.35, "name": "美的集团"}
    model.enqueue(ScriptedReply(tool_calls=[call("record_decision", args)]), ScriptedReply(text="好"))
    agent.run_turn(conv, "70元买了500股美的，手续费5.35")
    assert domain.holding("000333").cost == pytest.approx((35000 + 5.35) / 500, abs=1e-4)


def test_offline_planner_passes_the_users_day_words():
    context = "- 000333 美的集团（简称：美的） · 核心仓 · 100 股"
    (spec,) = planned_tool_calls("我2025年3月3日以70元买了500股美的", context, {"record_decision"})
    args = json.loads(spec.arguments)
    assert (args["symbol"], args["price"], args["quantity"], args["date"]) == ("000333", 70.0, 500, "2025年3月3日")
    (today,) = planned_tool_calls("今天以70元买了500股美的", context, {"record_decision"})
    assert "date" not in json.loads(today.arguments)


def test_get_holdings_says_the_cash_once_it_is_known(rig, model):
    from pixiu_cli.account.overview import set_cash

    make, store, domain, ctx = rig
    agent, conv = make()
    model.enqueue(ScriptedReply(tool_calls=[call("get_holdings", {})]), ScriptedReply(text="好"))
    agent.run_turn(conv, "我的持仓")
    assert json.loads(tool_messages(store, conv)[0][0]["content"])["cash"] is None
    set_cash(Account(domain.db), 50000, "昨天", ctx.now())
    model.enqueue(ScriptedReply(tool_calls=[call("get_holdings", {})]), ScriptedReply(text="好"))
    agent.run_turn(conv, "我的持仓和现金")
    yesterday = ctx.now().date().fromordinal(ctx.now().date().toordinal() - 1).isoformat()
    cash = json.loads(tool_messages(store, conv)[0][-1]["content"])["cash"]
    assert (cash["amount"], cash["as_of"], cash["source"]) == (50000, yesterday, "user")
