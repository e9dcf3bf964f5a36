"""The tool loop against the offline model's scripted queue, in process (the wire: tests/llm, tests/offline)."""

from __future__ import annotations

import json

import pytest

from pixiu_cli.account.handle import Account
from pixiu_cli.conversation.agent.guardrails import Guardrails
from pixiu_cli.conversation.context.block import MemoryId, parsed_digests
from pixiu_cli.conversation.offline.script import Fault, ScriptedReply
from pixiu_cli.memory.handle import Memory
from tests.helpers import NOW, call, tool_messages


def test_one_tool_call_then_answer(rig, model):
    make, store, domain, ctx = rig
    agent, conv = make()
    model.enqueue(ScriptedReply(tool_calls=[call("get_holdings", {})]), ScriptedReply(text="你有三只股票。"))
    result = agent.run_turn(conv, "我有哪些持仓")
    assert result.reply == "你有三只股票。" and result.calls == 2 and result.status == "complete"
    tools, calls = tool_messages(store, conv)
    assert [h["symbol"] for h in json.loads(tools[0]["content"])["holdings"]] == ["600519", "002415", "300750"]
    assert [c.step for c in calls] == [0, 1]
    assert calls[0].request["tools"] == calls[1].request["tools"]  # static tool list
    # the whole exchange is history for the next turn
    turn = store.turns(conv)[0]
    assert [m["role"] for m in turn.messages] == ["user", "user", "assistant", "tool", "assistant"]


def test_chain_of_two(rig, model):
    make, store, domain, ctx = rig
    agent, conv = make()
    model.enqueue(
        ScriptedReply(tool_calls=[call("get_holdings", {})]),
        ScriptedReply(tool_calls=[call("get_stock_profiles", {"symbols": ["002415"]})]),
        ScriptedReply(text="海康只适合卫星仓。"),
    )
    result = agent.run_turn(conv, "海康适合做什么仓")
    assert result.calls == 3 and result.reply == "海康只适合卫星仓。"
    tools, _ = tool_messages(store, conv)
    assert json.loads(tools[1]["content"])["profiles"][0]["best_role"] == "「satellite」"  # stored strings quoted


def test_parallel_calls(rig, model):
    make, store, domain, ctx = rig
    agent, conv = make()
    model.enqueue(
        ScriptedReply(tool_calls=[call("get_holdings", {}), call("load_context", {"topic": "a_share_rules"})]),
        ScriptedReply(text="好的"),
    )
    agent.run_turn(conv, "T+1 怎么影响我的持仓")
    tools, calls = tool_messages(store, conv)
    assert len(tools) == 2 and "T+1" in json.loads(tools[1]["content"])["content"]
    ids = [t["id"] for t in calls[-1].request["messages"][-3]["tool_calls"]]
    assert [t["tool_call_id"] for t in tools] == ids


def test_step_limit(rig, model):
    make, store, domain, ctx = rig
    agent, conv = make(Guardrails(max_steps=2))
    model.enqueue(*[ScriptedReply(tool_calls=[call("search_memory", {"text": f"第{i}次"})]) for i in range(5)])
    result = agent.run_turn(conv, "一直查")
    assert result.calls == 2 and result.status == "complete"  # max_steps model calls, not one more
    assert "上限" in result.reply and result.notices
    calls = store.calls_for_conversation(conv)
    last_tool = [m for m in calls[-1].request["messages"] if m["role"] == "tool"][-1]
    assert "工具调用上限" in json.loads(last_tool["content"])["note"]
    assert model.pending_replies == 3  # the loop stopped instead of draining the queue


def test_repeated_identical_call_is_not_run_twice(rig, model):
    make, store, domain, ctx = rig
    agent, conv = make()
    model.enqueue(
        ScriptedReply(tool_calls=[call("remember", {"kind": "rule", "text": "不追高"})]),
        ScriptedReply(tool_calls=[call("remember", {"text": "不追高", "kind": "rule"})]),
        ScriptedReply(text="记住了"),
    )
    agent.run_turn(conv, "我不追高")
    tools, _ = tool_messages(store, conv)
    assert json.loads(tools[0]["content"])["ok"] is True
    assert "重复调用" in json.loads(tools[1]["content"])["error"]
    assert len(ctx.memory.store.search(text="不追高")) == 1


@pytest.mark.parametrize(
    "spec,needle,said",
    [
        (call("no_such_tool", {}), "未知工具", "试试"),
        (call("get_holdings", "{not json"), "不是有效的 JSON", "试试"),
        (call("record_decision", {"symbol": "600519", "side": "hold", "price": 1, "quantity": 1}), "side", "试试"),
        (
            call("record_decision", {"symbol": "600519", "side": "sell", "price": 1700, "quantity": 999}),
            "超过持仓",
            "我以 1700 元卖了 999 股茅台",  # the user's own words: the call is theirs, the shares are not
        ),
        (call("remember", {"kind": "plan"}), "缺少必填参数 text", "试试"),
        (call("explode", {}), "数据源不可用", "试试"),
    ],
)
def test_bad_calls_become_tool_results(rig, model, spec, needle, said):
    make, store, domain, ctx = rig
    agent, conv = make()
    model.enqueue(ScriptedReply(tool_calls=[spec]), ScriptedReply(text="抱歉，换个方式"))
    result = agent.run_turn(conv, said)
    assert result.status == "complete" and result.reply == "抱歉，换个方式"
    tools, _ = tool_messages(store, conv)
    body = json.loads(tools[0]["content"])
    assert body["ok"] is False and needle in body["error"]


def test_tool_timeout(rig, model):
    make, store, domain, ctx = rig
    agent, conv = make(Guardrails(tool_timeout=0.3))
    model.enqueue(ScriptedReply(tool_calls=[call("sleepy", {})]), ScriptedReply(text="超时了"))
    result = agent.run_turn(conv, "慢工具")
    tools, _ = tool_messages(store, conv)
    assert "超时" in json.loads(tools[0]["content"])["error"] and result.reply == "超时了"


def test_record_decision_updates_holdings_and_memory(rig, model):
    make, store, domain, ctx = rig
    agent, conv = make()
    model.enqueue(
        ScriptedReply(
            tool_calls=[
                call(
                    "record_decision",
                    {"symbol": "002415", "side": "buy", "price": 29.5, "quantity": 1000, "reason": "回踩到位"},
                )
            ]
        ),
        ScriptedReply(text="已记录"),
    )
    result = agent.run_turn(conv, "29.5 买了 1000 股海康")
    assert result.notices and "已记录" in result.notices[0]
    from pixiu_cli.account.overview import read_account

    held = read_account(Account(domain.db), NOW).account.holding("002415")
    # the stated 2,000 @ 31.2 and the recorded 1,000 @ 29.5 with its estimated fee (万2.5 of
    # 29,500 = 7.375 and the 0.001% transfer fee 0.295, 7.67): the ledger adds them
    assert held.shares == 3000 and float(held.cost) == pytest.approx((2000 * 31.2 + 1000 * 29.5 + 7.67) / 3000)
    assert ctx.memory.store.search(kind="decision", symbol="002415")[0].text.startswith("买入 002415 1000 股")
    block, _, _ = agent.builder.context_block("你好", now=NOW)
    assert "回踩到位" in block.text  # lands in the recent-decisions class


def test_reasoning_of_a_tool_turn_is_sent_back_in_every_later_request(rig, model):
    """DeepSeek's thinking mode: the reasoning of every assistant message of a turn that
    called tools goes back, as received, in all later requests; a turn without tool calls
    sends none."""
    make, store, domain, ctx = rig
    agent, conv = make()
    model.enqueue(
        ScriptedReply(reasoning="先查持仓", tool_calls=[call("get_holdings", {})]),
        ScriptedReply(reasoning="再回答", text="答"),
        ScriptedReply(reasoning="第二轮只是寒暄", text="第二轮"),
        ScriptedReply(text="第三轮"),
    )
    agent.run_turn(conv, "一")
    second_call = store.calls_for_conversation(conv)[-1].request["messages"]
    assistant = [m for m in second_call if m["role"] == "assistant"][0]
    assert assistant["reasoning_content"] == "先查持仓"
    agent.run_turn(conv, "二")
    agent.run_turn(conv, "三")
    for later in [c.request["messages"] for c in store.calls_for_conversation(conv)[-2:]]:
        sent = [m.get("reasoning_content") for m in later if m["role"] == "assistant"]
        assert sent[:2] == ["先查持仓", "再回答"]
        assert all(r is None for r in sent[2:])  # turn 2 called no tool: its reasoning stays home


def test_tool_list_is_identical_across_conversations(rig, model):
    make, store, domain, ctx = rig
    a, conv_a = make()
    b, conv_b = make()
    model.enqueue(ScriptedReply(text="1"), ScriptedReply(text="2"))
    a.run_turn(conv_a, "海康怎么样")
    b.run_turn(conv_b, "我的仓位配比")
    ra, rb = model.requests[-2].json, model.requests[-1].json
    assert json.dumps(ra["tools"], ensure_ascii=False) == json.dumps(rb["tools"], ensure_ascii=False)
    assert ra["messages"][0] == rb["messages"][0]
    assert (
        model.requests[-2].body_bytes.split(b'"messages"')[0] == model.requests[-1].body_bytes.split(b'"messages"')[0]
    )


def test_turn_stores_its_block_record_and_a_failed_turn_none(rig, model):
    """What the turn's [上下文信息] block carried is stored with it, so a later turn reads
    it instead of parsing the block text; a turn that failed before any reply keeps no
    messages and no record."""
    make, store, domain, ctx = rig
    agent, conv = make()
    model.enqueue(ScriptedReply(text="好的。"))
    done = agent.run_turn(conv, "海康怎么样")
    turn = store.turn_by_seq(conv, done.seq)
    block = next(m["content"] for m in turn.messages if m["content"].startswith("[上下文信息]"))
    assert turn.block["sections"] == parsed_digests(block) and "当前时间" in turn.block["sections"]
    ids = [MemoryId(*m) for m in turn.block["memory_ids"]]
    assert ids and all(f"（{m}）" in block for m in ids)
    info = json.loads(store.calls_for_turn(turn.id)[0].context_json)
    assert info["memory_ids"] == [str(m) for m in ids]  # /context shows them as "note:12"
    model.enqueue(ScriptedReply(fault=Fault(kind="http_error", status=402)))
    failed = agent.run_turn(conv, "再问")
    assert failed.status == "error"
    turn = store.turn_by_seq(conv, failed.seq)
    assert turn.messages == [] and turn.block is None


def test_notes_shown_are_counted_once_per_turn(rig, model):
    make, store, domain, ctx = rig
    agent, conv = make()
    counts = lambda: dict(store.db.execute("select id, inject_count from memory_events").fetchall())  # noqa: E731
    before = counts()
    model.enqueue(ScriptedReply(text="好的。"))
    agent.run_turn(conv, "海康怎么样")
    shown = {m[1] for m in store.turns(conv)[-1].block["memory_ids"] if m[0] == "note"}
    assert shown and {i: n - before[i] for i, n in counts().items()} == {i: int(i in shown) for i in before}


def test_a_remembered_plan_that_restates_an_older_one_only_offers_to_replace_it(rig, model):
    from pixiu_cli.memory import notes

    make, store, domain, ctx = rig
    agent, conv = make()
    older = notes.add_note(
        Memory(domain.db), notes.NewNote("plan", "美的回踩60加仓", "000333", "user"), NOW.isoformat()
    )
    model.enqueue(
        ScriptedReply(tool_calls=[call("remember", {"kind": "plan", "text": "美的回踩58加仓", "symbol": "000333"})]),
        ScriptedReply(text="记下了"),
    )
    result = agent.run_turn(conv, "美的改成回踩58加仓")  # the tool runs inside a streamed turn: it cannot ask
    assert result.status == "complete"
    tools, _ = tool_messages(store, conv)
    new = json.loads(tools[0]["content"])
    old_ref = f"n{older.event.id}"
    assert new["offers_to_replace"] == [{"id": old_ref, "text": "「美的回踩60加仓」"}]
    notice = next(n for n in result.notices if "替换旧计划吗" in n)  # what the REPL shows after the reply
    assert f"#{old_ref}「美的回踩60加仓」" in notice and f"/memory replace {new['id']}" in notice
    in_force = [p.text for p in ctx.memory.store.plans_in_force("000333")]
    assert in_force == ["美的回踩58加仓", "美的回踩60加仓"]  # both hold until the user accepts
