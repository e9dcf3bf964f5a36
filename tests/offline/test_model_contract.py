"""The contract between the two `ChatModel`s: the real client over HTTP to the offline server
(through the real openai SDK) and the offline model in process must give the loop the same
thing for the same script — deltas, tool calls, finish reason, usage and cache figures, the
error line and the stored request bytes. The loop's own tests run on the in-process model
because of this suite; the wire itself is tested here and in tests/llm."""

from __future__ import annotations

import json

import pytest

from pixiu_cli.conversation.llm.model import ChatModel, request_json
from pixiu_cli.conversation.llm.types import CallOutcome, ChatRequest, LLMError
from pixiu_cli.conversation.offline.model import OfflineModel
from pixiu_cli.conversation.offline.script import Fault, ScriptedReply
from tests.helpers import FIXTURE, NOW, build_app, call, http_model

SYSTEM = "你是测试助手。" + "规则说明。" * 80  # long enough to span several 64-token units
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_holdings",
            "description": "持仓",
            "parameters": {"type": "object", "properties": {}, "required": []},
        },
    }
]


def request(question: str = "你好", **extra) -> ChatRequest:
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]
    return ChatRequest(messages=messages, tools=extra.get("tools", TOOLS), temperature=extra.get("temperature"))


def outcome_of(client: ChatModel, chat: ChatRequest) -> dict:
    """Everything the loop reads from one call, or the error it gets."""
    outcome = CallOutcome()
    events: list = []
    error = None
    try:
        for event in client.stream(chat, outcome):
            events.append(event)
    except LLMError as exc:
        error = (str(exc), exc.kind, exc.status, exc.after_output)
    return {
        "events": events,
        "text": outcome.text,
        "reasoning": outcome.reasoning,
        "tool_calls": outcome.tool_calls,
        "finish_reason": outcome.finish_reason,
        "usage": outcome.usage,
        "request_json": outcome.request_json,
        "attempts": outcome.attempts,
        "error": error,
    }


def both(server, in_process, *scripts, faults=(), chats=None, **client_options):
    """Each side gets the same script; the calls' results, side by side. With
    `client_options`, the in-process side is a new model made with them."""
    client = http_model(server, **client_options)
    local = OfflineModel(**client_options) if client_options else in_process
    for side in (server, local):
        side.enqueue(*scripts)
        side.inject(*faults)
    chats = chats or [request()]
    return [outcome_of(client, c) for c in chats], [outcome_of(local, c) for c in chats], local


def without_server_text(error):
    """The error line names the service's address, which is not the same on both sides."""
    return None if error is None else (error[0].split("（")[0], *error[1:])


def test_both_are_chat_models(server, model):
    assert isinstance(http_model(server), ChatModel) and isinstance(model, ChatModel)


def test_text_reasoning_usage_and_bytes_are_the_same(server, model):
    reply = ScriptedReply(text="你好，这是测试回复。", reasoning="先想一想。", chunk_chars=3)
    wire, local, _ = both(server, model, reply)
    assert wire == local
    assert wire[0]["text"] == "你好，这是测试回复。" and wire[0]["usage"].prompt_tokens > 0
    # the stored bytes are the bytes the server received, and the in-process model stores them too
    assert wire[0]["request_json"].encode("utf-8") == server.requests[-1].body_bytes
    assert model.requests[-1].body_bytes == server.requests[-1].body_bytes


def test_tool_calls_are_the_same(server, model):
    reply = ScriptedReply(tool_calls=[call("get_holdings", {}), call("load_context", {"topic": "a_share_rules"})])
    wire, local, _ = both(server, model, reply)
    assert wire == local
    assert [t.name for t in wire[0]["tool_calls"]] == ["get_holdings", "load_context"]
    assert wire[0]["finish_reason"] == "tool_calls" and wire[0]["tool_calls"][0].id.startswith("call_")


def test_the_offline_responder_answers_the_same(server, model):
    wire, local, _ = both(server, model, chats=[request("帮我看看仓位")])
    assert wire == local and "离线" in wire[0]["text"]


def test_cache_figures_are_the_same_across_calls(server, model):
    second = request("第二问" * 40)
    later = [*second.messages, {"role": "assistant", "content": "二"}, {"role": "user", "content": "接着问"}]
    chats = [request("第一问"), second, ChatRequest(messages=later, tools=TOOLS)]
    wire, local, _ = both(server, model, "一", "二", "三", chats=chats)
    assert [w["usage"] for w in wire] == [loc["usage"] for loc in local]
    hits = [w["usage"].cache_hit_tokens for w in wire]
    assert hits[0] == 0 and 0 < hits[1] < hits[2]


@pytest.mark.parametrize(
    "fault",
    [
        Fault("http_error", status=402),
        Fault("http_error", status=400),
        Fault("http_error", status=500),
        Fault("http_error", status=429, retry_after=1),
    ],
    ids=lambda f: str(f.status),
)
def test_error_statuses_are_the_same_line(server, model, fault):
    wire, local, _ = both(server, model, "不会用到", faults=[fault])
    assert wire == local
    assert wire[0]["error"][1:] == ("status", fault.status, False)
    assert server.pending_replies == model.pending_replies == 1  # a rejected request takes no reply


@pytest.mark.parametrize("kind", ["drop_stream", "malformed_chunk"])
def test_a_broken_stream_keeps_the_same_part_and_line(server, model, kind):
    reply = ScriptedReply(text="部分内容然后断开了", chunk_chars=2, fault=Fault(kind, after_chunks=3))
    wire, local, _ = both(server, model, reply)
    assert wire == local
    assert wire[0]["text"] == "部分内容" and wire[0]["error"][1:] == (
        "dropped" if kind == "drop_stream" else "malformed",
        None,
        True,
    )


def test_a_timeout_is_the_same_kind(server, model):
    wire, local, _ = both(server, model, "迟到的回答", faults=[Fault("timeout", seconds=3)], timeout=0.3)
    assert without_server_text(wire[0]["error"]) == without_server_text(local[0]["error"])
    assert wire[0]["error"][1] == "timeout"


def test_a_retry_is_announced_and_counted_the_same(server, model):
    wire, local, _ = both(server, model, "第二次成功", faults=[Fault("http_error", status=503)], max_retries=1)
    assert wire == local
    assert wire[0]["attempts"] == 2 and wire[0]["events"][0][0] == "retry" and wire[0]["text"] == "第二次成功"


def test_request_json_is_what_the_sdk_sends(server):
    """`request_json` is the one serialisation of a body: the SDK's field order, compact,
    non-ASCII kept — including a tool turn's messages with reasoning sent back."""
    client = http_model(server)
    messages = [
        {"role": "system", "content": '引号 "x" 与 \u2028 😀'},
        {"role": "user", "content": "a/b"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
            "reasoning_content": "想一想",
        },
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps({"价格": 1.5e300}, ensure_ascii=False)},
    ]
    chat = ChatRequest(messages=messages, tools=TOOLS, temperature=0.2)
    outcome = CallOutcome()
    list(client.stream(chat, outcome))
    assert request_json(client.body_for(chat)).encode("utf-8") == server.requests[-1].body_bytes


def test_a_tool_turn_stores_the_same_calls_on_both(server, model, tmp_path):
    """The whole loop on each side, from the same database: every stored call (request bytes,
    reply, tool calls, usage) is the same."""
    script = [ScriptedReply(tool_calls=[call("get_holdings", {})]), ScriptedReply(text="你有三只股票。")]
    stored = []
    for name, client, side in (("wire", http_model(server), server), ("local", model, model)):
        app = build_app(client, tmp_path / f"{name}.db", portfolio=FIXTURE, now=NOW)
        side.enqueue(*script)
        conversation = app.new_conversation()
        result = app.agent.run_turn(conversation, "我有哪些持仓")
        assert result.status == "complete" and result.calls == 2
        stored.append(
            [
                (c.request_json, c.reply_text, c.tool_calls_json, c.usage, c.finish_reason)
                for c in app.store.calls_for_conversation(conversation)
            ]
        )
        app.db.close()
    assert stored[0] == stored[1]
    assert [r[0].encode("utf-8") for r in stored[0]] == [r.body_bytes for r in server.requests]


def test_thinking_mode_thinks_and_sends_the_same_bytes(server, model):
    """Asked to think (DeepSeek's `thinking`, sent in the SDK's extra body, after its own
    fields), the responder reasons the same on both sides."""
    options = {"thinking": "enabled", "reasoning_effort": "high"}
    wire, local, _ = both(server, model, chats=[request("帮我看看仓位")], **options)
    assert wire == local and wire[0]["reasoning"].startswith("（离线思考）")
    sent = json.loads(server.requests[-1].body_bytes)
    assert sent["thinking"] == {"type": "enabled"} and sent["reasoning_effort"] == "high"


def test_deepseeks_own_refusals_are_the_same_line(server, model):
    """A tool turn sent back without its reasoning in thinking mode, and a retired model name."""
    tool_turn = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "一"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_holdings", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "{}"},
        {"role": "assistant", "content": "答"},
        {"role": "user", "content": "二"},
    ]
    wire, local, _ = both(server, model, "不会用到", chats=[ChatRequest(messages=tool_turn)], thinking="enabled")
    assert wire == local and wire[0]["error"][1:3] == ("status", 400)
    assert "reasoning_content" in wire[0]["error"][0]
    wire, local, _ = both(server, model, chats=[request()], model="deepseek-chat", max_retries=0)
    assert wire == local and wire[0]["error"][1:3] == ("status", 400)
    assert "deepseek-chat" in wire[0]["error"][0]
