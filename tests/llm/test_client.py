"""ChatClient through the real openai SDK against the offline server over HTTP."""

from __future__ import annotations

import json

import pytest

from pixiu_cli.conversation.llm.client import ChatClient
from pixiu_cli.conversation.llm.types import CallOutcome, ChatRequest, LLMError
from pixiu_cli.conversation.offline.script import Fault, ScriptedReply, ToolCallSpec
from pixiu_cli.conversation.offline.server import OfflineServer
from tests.helpers import PLANTED_KEY

SYSTEM = "你是测试助手。" + "规则说明。" * 80  # long enough to span several 64-token units


def make_client(server, retries=0, timeout=5.0) -> ChatClient:
    return ChatClient(
        base_url=server.base_url,
        api_key=PLANTED_KEY,
        model="deepseek-test",
        provider="deepseek",
        timeout=timeout,
        max_retries=retries,
    )


def run(client, messages, tools=None):
    outcome = CallOutcome()
    events = list(client.stream(ChatRequest(messages=messages, tools=tools or []), outcome))
    return outcome, events


def msgs(question="你好"):
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]


def test_streams_text_and_records_exact_request_bytes(server):
    server.enqueue(ScriptedReply(text="你好，我是测试回复。"))
    outcome, events = run(make_client(server), msgs())
    assert "".join(d for k, d in events if k == "text") == "你好，我是测试回复。"
    assert outcome.text == "你好，我是测试回复。"
    assert outcome.finish_reason == "stop"
    # what we store is byte-for-byte what the server received
    assert outcome.request_json.encode("utf-8") == server.requests[-1].body_bytes
    body = json.loads(outcome.request_json)
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert PLANTED_KEY not in outcome.request_json
    assert outcome.ttft_ms is not None and outcome.latency_ms >= outcome.ttft_ms


def test_reasoning_is_streamed_separately(server):
    server.enqueue(ScriptedReply(text="结论", reasoning="先想一想"))
    outcome, events = run(make_client(server), msgs())
    assert outcome.reasoning == "先想一想" and outcome.text == "结论"
    assert events[0][0] == "reasoning"


def test_tool_calls_are_assembled(server):
    server.enqueue(
        ScriptedReply(
            tool_calls=[ToolCallSpec("get_holdings", "{}"), ToolCallSpec("remember", '{"text": "回踩30元加仓"}')]
        )
    )
    outcome, _ = run(make_client(server), msgs())
    assert [t.name for t in outcome.tool_calls] == ["get_holdings", "remember"]
    assert json.loads(outcome.tool_calls[1].arguments) == {"text": "回踩30元加仓"}
    assert outcome.finish_reason == "tool_calls"


def test_deepseek_usage_reports_hit_on_second_identical_prefix(server):
    client = make_client(server)
    first, _ = run(client, msgs("第一个问题"))
    second, _ = run(client, msgs("第二个问题"))
    assert first.usage.cache_hit_tokens == 0
    assert second.usage.cache_hit_tokens > 0 and second.usage.cache_hit_tokens % 64 == 0
    assert second.usage.cache_hit_tokens + second.usage.cache_miss_tokens == second.usage.prompt_tokens


def test_changed_system_prompt_reports_no_hit(server):
    client = make_client(server)
    run(client, msgs())
    changed = [{"role": "system", "content": "变了。" + SYSTEM}, {"role": "user", "content": "你好"}]
    outcome, _ = run(client, changed)
    assert outcome.usage.cache_hit_tokens == 0


@pytest.mark.parametrize("profile", ["openai", "none"])
def test_usage_for_other_profiles(profile):
    with OfflineServer(cache_profile=profile) as server:
        client = make_client(server)
        run(client, msgs())
        outcome, _ = run(client, msgs())
        assert outcome.usage.prompt_tokens > 0
        if profile == "none":
            assert outcome.usage.cache_hit_tokens is None and outcome.usage.cache_miss_tokens is None
        else:
            # under 1024 common tokens OpenAI caches nothing, but it does report the field
            assert outcome.usage.cache_hit_tokens == 0
            assert outcome.usage.cache_miss_tokens == outcome.usage.prompt_tokens


@pytest.mark.parametrize("status,needle", [(401, "401"), (402, "余额"), (429, "429"), (500, "500"), (503, "503")])
def test_status_errors_become_one_line_without_the_key(server, status, needle):
    server.inject(Fault("http_error", status=status))
    with pytest.raises(LLMError) as info:
        run(make_client(server), msgs())
    message = str(info.value)
    assert needle in message and "\n" not in message and PLANTED_KEY not in message
    assert info.value.status == status


def test_retryable_error_is_retried(server):
    server.inject(Fault("http_error", status=503))
    server.enqueue(ScriptedReply(text="重试后成功"))
    outcome, _ = run(make_client(server, retries=2), msgs())
    assert outcome.text == "重试后成功"
    assert len(server.requests) == 2


def test_rate_limit_honours_retry_after(server):
    # 1.5 s is three times the longest first back-off without Retry-After (0.5 s), so a
    # client that ignored the header would come back measurably early.
    server.inject(Fault("http_error", status=429, retry_after=1.5))
    server.enqueue(ScriptedReply(text="好了"))
    outcome, _ = run(make_client(server, retries=1), msgs())
    assert outcome.text == "好了"
    refused, retried = server.requests[-2:]
    assert refused.status == 429
    waited = retried.received_at - refused.received_at
    assert 1.5 <= waited < 3.0, waited


def test_timeout_is_one_line(server):
    server.inject(Fault("timeout", seconds=3))
    with pytest.raises(LLMError) as info:
        run(make_client(server, timeout=0.5), msgs())
    assert info.value.kind == "timeout"


def test_connection_refused_is_one_line():
    client = ChatClient(
        base_url="http://127.0.0.1:9/v1", api_key=PLANTED_KEY, model="m", provider="x", timeout=2, max_retries=0
    )
    with pytest.raises(LLMError) as info:
        run(client, msgs())
    assert info.value.kind == "connection" and PLANTED_KEY not in str(info.value)
    message = str(info.value)
    assert message.strip() and "\n" not in message and "\r" not in message, repr(message)
    assert "Traceback" not in message and len(message) < 200, message


def test_dropped_stream_keeps_partial_text(server):
    server.enqueue(
        ScriptedReply(text="这是一段会被掐断的回复内容", chunk_chars=2, fault=Fault("drop_stream", after_chunks=2))
    )
    outcome = CallOutcome()
    with pytest.raises(LLMError):
        for _ in make_client(server).stream(ChatRequest(messages=msgs()), outcome):
            pass
    assert outcome.text and "这是一段会被掐断的回复内容".startswith(outcome.text)  # received part kept


def test_malformed_chunk_is_an_error(server):
    server.enqueue(
        ScriptedReply(text="正常开头然后坏掉", chunk_chars=2, fault=Fault("malformed_chunk", after_chunks=3))
    )
    outcome = CallOutcome()
    with pytest.raises(LLMError):
        for _ in make_client(server).stream(ChatRequest(messages=msgs()), outcome):
            pass
    assert outcome.text and "正常开头然后坏掉".startswith(outcome.text)


def test_keepalive_lines_are_ignored(server):
    server.enqueue(ScriptedReply(text="保持连接后的回复", fault=Fault("keepalive", keepalive_lines=3)))
    outcome, _ = run(make_client(server), msgs())
    assert outcome.text == "保持连接后的回复"
