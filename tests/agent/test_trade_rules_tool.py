"""The exchanges' rules on a trade the model records with `record_decision`: the same record
path as `pixiu trade` (account/trades.py), so T+1, lots, the estimated fee and the day the
user named (weekday words resolved with the trading calendar) hold there too; a refusal goes
back to the model and nothing is written."""

from __future__ import annotations

import json
from datetime import datetime

from pixiu_cli.conversation.model_tools import TOOLS
from pixiu_cli.conversation.offline.script import ScriptedReply
from pixiu_cli.market.calendar import SHANGHAI
from tests.helpers import FIXTURE, build_app, call, tool_messages

SUNDAY = datetime(2026, 11, 29, 10, 0, tzinfo=SHANGHAI)


def _decisions(db):
    return db.execute("select side, quantity, decided_at from decisions where source = 'model' order by id").fetchall()


def _turn(agent, conv, model, said, args):
    model.enqueue(ScriptedReply(tool_calls=[call("record_decision", args)]), ScriptedReply(text="好"))
    return agent.run_turn(conv, said)


def _result(store, conv) -> dict:
    tools, _ = tool_messages(store, conv)
    return json.loads(tools[-1]["content"])


def test_a_same_day_sell_of_todays_buy_goes_back_to_the_model(rig, model):
    make, store, domain, ctx = rig
    agent, conv = make()
    buy = {"symbol": "000333", "side": "buy", "price": 70, "quantity": 500, "name": "美的集团", "fee": 5}
    _turn(agent, conv, model, "今天70元买了500股美的，手续费5", buy)
    sell = {"symbol": "000333", "side": "sell", "price": 72, "quantity": 500}
    _turn(agent, conv, model, "今天72元卖了500股美的", sell)
    assert "T+1" in _result(store, conv)["error"]
    assert [row[0] for row in _decisions(domain.db)] == ["buy"]


def test_an_odd_lot_buy_goes_back_to_the_model(rig, model):
    make, store, domain, ctx = rig
    agent, conv = make()
    _turn(agent, conv, model, "今天70元买了50股美的", {"symbol": "000333", "side": "buy", "price": 70, "quantity": 50})
    assert "主板按 100 股的整数倍买卖" in _result(store, conv)["error"]
    said = "今天50元买了150股中芯国际688981"
    _turn(agent, conv, model, said, {"symbol": "688981", "side": "buy", "price": 50, "quantity": 150})
    assert "科创板每笔至少 200 股" in _result(store, conv)["error"]
    assert _decisions(domain.db) == []


def test_a_trade_without_a_fee_carries_the_estimate(rig, model):
    make, store, domain, ctx = rig
    agent, conv = make()
    result = _turn(
        agent, conv, model, "今天70元买了500股美的", {"symbol": "000333", "side": "buy", "price": 70, "quantity": 500}
    )
    # 万2.5 of 35,000 = 8.75 and the transfer fee 0.35
    assert (_result(store, conv)["fee"], _result(store, conv)["fee_estimated"]) == (9.1, True)
    assert "费用 9.10 元（估算" in result.notices[0]
    block, _, _ = agent.builder.context_block("我最近的交易记录", now=ctx.now())
    assert "费用 9.10（估算）" in block.text


def test_a_weekday_the_user_named_on_a_sunday_is_that_days_session(model, tmp_path):
    app = build_app(model, tmp_path / "p.db", portfolio=FIXTURE, now=SUNDAY)
    agent, conv = app.agent_with(tools=TOOLS), app.new_conversation()
    args = {"symbol": "000333", "side": "buy", "price": 70, "quantity": 500, "name": "美的集团", "fee": 5}
    _turn(agent, conv, model, "我周五以70元买了500股美的，手续费5元", args)  # no date in the call
    assert _decisions(app.domain.db)[0][2].startswith("2026-11-27")
    _turn(agent, conv, model, "我上周三以70元买了500股美的，手续费5元", {**args, "date": "上周三"})
    assert _decisions(app.domain.db)[1][2].startswith("2026-11-18")
    _turn(agent, conv, model, "我昨天以70元买了500股美的，手续费5元", {**args, "date": "昨天"})
    assert "2026-11-28（周六） 周末休市" in _result(app.store, conv)["error"]
    assert len(_decisions(app.domain.db)) == 2
