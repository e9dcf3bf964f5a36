"""History compaction: one large chunk summarised at once, then caching resumes."""

from __future__ import annotations

import _thread
import threading
import time

from pixiu_cli.account.explain import wait_for_explanations
from pixiu_cli.conversation.context.memory_classes import MemoryLimits
from pixiu_cli.conversation.offline.script import ScriptedReply
from tests.helpers import build_app

LONG_REPLY = "这是一段比较长的回答，用来让历史尽快超过预算。" * 12


def rig(model, tmp_path, provider="deepseek", budget=1500):
    model.provider = provider  # "offline" summarises without a model call
    app = build_app(model, tmp_path / "c.db", limits=MemoryLimits(), compact_budget=budget)
    return app.agent, app.store, app.new_conversation()


def test_model_summary_once_then_history_restarts(model, tmp_path):
    agent, store, conv = rig(model, tmp_path)
    compacted_at = None
    for i in range(1, 12):
        before = len(model.requests)
        if store.history_tokens_after(conv, store.get_conversation(conv).summary_upto_turn) > 1500:
            model.enqueue(ScriptedReply(text="- 用户关心仓位与海康的加仓计划"), ScriptedReply(text=LONG_REPLY))
            compacted_at = i
            agent.run_turn(conv, f"第{i}个问题")
            assert len(model.requests) - before == 2  # one summary call, one answer
            break
        model.enqueue(ScriptedReply(text=LONG_REPLY))
        agent.run_turn(conv, f"第{i}个问题")
    assert compacted_at is not None
    conversation = store.get_conversation(conv)
    assert conversation.summary == "- 用户关心仓位与海康的加仓计划" and conversation.summary_upto_turn > 0
    summary_calls = [c for c in store.calls_for_conversation(conv) if c.step == -1]
    assert len(summary_calls) == 1 and "需要压缩的对话" in summary_calls[0].request["messages"][1]["content"]
    sent = model.requests[-1].json["messages"]
    users = [m["content"] for m in sent if m["role"] == "user" and not m["content"].startswith("[上下文信息]")]
    assert "第1个问题" not in users and users[-1] == f"第{compacted_at}个问题"
    assert "## 对话摘要" in sent[-2]["content"] and "海康的加仓计划" in sent[-2]["content"]
    # after the compaction the cache works again: the next call extends the previous one
    model.enqueue(ScriptedReply(text="短回答"))
    result = agent.run_turn(conv, "再问一句")
    assert result.usage.cache_hit_tokens > 0.8 * result.usage.prompt_tokens


def test_offline_compaction_is_extractive_and_makes_no_call(model, tmp_path):
    agent, store, conv = rig(model, tmp_path, provider="offline", budget=800)
    for i in range(1, 8):
        model.enqueue(ScriptedReply(text=LONG_REPLY))
        agent.run_turn(conv, f"问题{i}")
    conversation = store.get_conversation(conv)
    assert conversation.summary_upto_turn > 0 and "用户问「问题1」" in conversation.summary
    assert not [c for c in store.calls_for_conversation(conv) if c.step == -1]
    assert len(model.requests) == 7


def test_history_tokens_count_only_what_is_sent_under_drop(model, tmp_path):
    agent, store, conv = rig(model, tmp_path, budget=10**9)
    model.enqueue(ScriptedReply(text="答"), ScriptedReply(text="答"))
    agent.run_turn(conv, "问")
    kept = store.turns(conv)[-1].history_tokens
    agent.builder.history_blocks = "drop"
    agent.run_turn(conv, "问")
    dropped = store.turns(conv)[-1].history_tokens
    assert dropped < kept / 3  # the block dominates; under drop it is never sent again


def _fill_until_due(agent, store, model, conv, budget=1500) -> None:
    for i in range(1, 12):
        if store.history_tokens_after(conv, store.get_conversation(conv).summary_upto_turn) > budget:
            return
        model.enqueue(ScriptedReply(text=LONG_REPLY))
        agent.run_turn(conv, f"第{i}个问题")
    raise AssertionError("the history never passed its budget")


def test_summary_call_is_stored_like_any_call(model, tmp_path):
    """The summary call goes through the same call step as the answer: its stored request
    is the bytes the model received, and it has a cache explanation."""
    agent, store, conv = rig(model, tmp_path)
    _fill_until_due(agent, store, model, conv)
    model.enqueue(ScriptedReply(text="- 摘要"), ScriptedReply(text="答"))
    before = len(model.requests)
    agent.run_turn(conv, "再问")
    wait_for_explanations()
    summary = [c for c in store.calls_for_conversation(conv) if c.step == -1]
    assert len(summary) == 1 and summary[0].status == "complete" and summary[0].reply_text == "- 摘要"
    assert summary[0].request_json.encode("utf-8") == model.requests[before].body_bytes
    assert store.get_call(summary[0].id).cache_explanation_json


def test_ctrl_c_while_summarising_stops_the_turn_as_interrupted(model, tmp_path):
    agent, store, conv = rig(model, tmp_path)
    _fill_until_due(agent, store, model, conv)
    model.enqueue(ScriptedReply(text="一段很长的摘要" * 20, chunk_delay=0.1))
    asked = len(model.requests)

    def interrupt_once_asked() -> None:  # Ctrl-C while the summary streams
        deadline = time.monotonic() + 30
        while len(model.requests) == asked and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)
        _thread.interrupt_main()

    threading.Thread(target=interrupt_once_asked, daemon=True).start()
    result = agent.run_turn(conv, "被打断的问题")
    assert (result.status, result.error, result.reply) == ("interrupted", "用户按 Ctrl-C 中断了回复", "")
    assert len(model.requests) == asked + 1  # no answer call after the interrupted summary
    turn = store.turns(conv)[-1]
    assert turn.status == "interrupted" and turn.messages == [] and turn.block is None
    assert [c.status for c in store.calls_for_turn(turn.id)] == ["interrupted"]
    assert store.get_conversation(conv).summary is None  # nothing was summarised


def test_a_tool_turns_reasoning_counts_toward_the_history_and_goes_with_its_turn(model, tmp_path):
    """Reasoning sent back after tool calls is history like any other text: it counts toward
    the budget, and once its turn is summarised it is sent no more."""
    from tests.helpers import call

    agent, store, conv = rig(model, tmp_path, provider="offline", budget=800)
    thinking = "先想一想持仓，再决定调用哪个工具。" * 20
    model.enqueue(
        ScriptedReply(reasoning=thinking, tool_calls=[call("get_holdings", {})]),
        ScriptedReply(reasoning="看完了", text="答"),
    )
    agent.run_turn(conv, "问题1")
    first = store.turns(conv)[0]
    assert first.history_tokens > 200  # the short question and answer alone are a few dozen tokens
    for i in range(2, 9):
        model.enqueue(ScriptedReply(text=LONG_REPLY))
        agent.run_turn(conv, f"问题{i}")
        sent = model.requests[-1].json["messages"]
        if store.get_conversation(conv).summary_upto_turn >= 1:
            assert all(thinking != m.get("reasoning_content") for m in sent)
            return
        assert any(m.get("reasoning_content") == thinking for m in sent)
    raise AssertionError("the first turn was never summarised")
