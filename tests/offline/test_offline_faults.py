"""Injected faults as the real SDK experiences them."""

from __future__ import annotations

import json
import time

import openai
import pytest

from pixiu_cli.conversation.offline import Fault, ScriptedReply

MODEL = "deepseek-flash"
HELLO = [{"role": "user", "content": "你好"}]


def ask(client, **extra):
    return client.chat.completions.create(model=MODEL, messages=HELLO, **extra)


@pytest.mark.parametrize(
    ("status", "exception", "error_type"),
    [
        (402, openai.APIStatusError, "insufficient_balance"),
        (429, openai.RateLimitError, "rate_limit_error"),
        (500, openai.InternalServerError, "api_error"),
        (503, openai.InternalServerError, "server_overloaded"),
    ],
)
def test_http_errors_raise_the_matching_sdk_exception(offline, client, status, exception, error_type):
    offline.inject(Fault("http_error", status=status))
    with pytest.raises(exception) as caught:
        ask(client)
    assert caught.value.status_code == status
    assert caught.value.body["type"] == error_type and caught.value.body["message"]
    if status == 402:
        assert type(caught.value) is openai.APIStatusError
    assert "离线" in ask(client).choices[0].message.content  # consumed by one request


def test_http_error_while_streaming_raises_before_any_chunk(offline, client):
    offline.inject(Fault("http_error", status=503))
    with pytest.raises(openai.InternalServerError):
        ask(client, stream=True)


def test_single_503_then_success_with_retries(offline, make_client):
    client = make_client(offline, max_retries=2)
    offline.enqueue(ScriptedReply(text="重试成功"))
    offline.inject(Fault("http_error", status=503))
    assert ask(client).choices[0].message.content == "重试成功"
    assert [r.status for r in offline.requests] == [503, 200]


def test_429_with_retry_after(offline, client, make_client):
    offline.inject(Fault("http_error", status=429, retry_after=0.3))
    with pytest.raises(openai.RateLimitError) as caught:
        ask(client)
    assert caught.value.response.headers["retry-after"] == "0.3"

    retrying = make_client(offline, max_retries=1)
    offline.enqueue(ScriptedReply(text="等了一会儿"))
    offline.inject(Fault("http_error", status=429, retry_after=0.3))
    start = time.monotonic()
    assert ask(retrying).choices[0].message.content == "等了一会儿"
    assert time.monotonic() - start >= 0.3


def test_delay_then_normal_answer(offline, client):
    offline.enqueue(ScriptedReply(text="慢"))
    offline.inject(Fault("delay", seconds=0.3))
    start = time.monotonic()
    assert ask(client).choices[0].message.content == "慢"
    assert time.monotonic() - start >= 0.3


def test_keepalive_lines_are_ignored_by_the_sdk(offline, client, raw_http):
    offline.enqueue(ScriptedReply(text="心跳之后的回答", chunk_chars=3))
    offline.inject(Fault("keepalive", keepalive_lines=3))
    chunks = list(ask(client, stream=True))
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "心跳之后的回答"
    assert chunks[-1].choices[0].finish_reason == "stop"

    offline.enqueue(ScriptedReply(text="非流式"))
    offline.inject(Fault("keepalive", keepalive_lines=4))
    assert ask(client).choices[0].message.content == "非流式"

    offline.inject(Fault("keepalive", keepalive_lines=2))
    status, headers, body = raw_http(
        offline,
        "POST",
        "/v1/chat/completions",
        {"model": MODEL, "messages": HELLO, "stream": True},
        {"Authorization": "Bearer sk-test"},
    )
    assert status == 200 and headers["content-type"].startswith("text/event-stream")
    assert body.startswith(b": keep-alive\n\n: keep-alive\n\ndata: {")
    assert body.endswith(b"data: [DONE]\n\n")


def test_dropped_stream_raises_connection_error_without_finish_reason(offline, client):
    offline.enqueue(ScriptedReply(text="这段回答会在中途断掉", chunk_chars=2))
    offline.inject(Fault("drop_stream", after_chunks=3))
    received = []
    with pytest.raises(openai.APIConnectionError):
        for chunk in ask(client, stream=True):
            received.append(chunk)
    assert len(received) == 3
    # after_chunks counts every data chunk, the opening role chunk included
    assert "".join(c.choices[0].delta.content or "" for c in received) == "这段回答"
    assert all(c.choices[0].finish_reason is None for c in received)


def test_dropped_non_streaming_response_raises(offline, client):
    offline.inject(Fault("drop_stream"))
    with pytest.raises(openai.APIConnectionError):
        ask(client)


def test_malformed_chunk_raises_a_json_error(offline, client):
    offline.enqueue(ScriptedReply(text="好的数据然后坏的", chunk_chars=2))
    offline.inject(Fault("malformed_chunk", after_chunks=2))
    received = []
    # The SDK lets json.JSONDecodeError (a ValueError) escape from the stream.
    with pytest.raises(json.JSONDecodeError):
        for chunk in ask(client, stream=True):
            received.append(chunk)
    assert len(received) == 2


def test_timeout_raises_api_timeout_error(offline, client):
    offline.enqueue(ScriptedReply(text="超时之后"))
    offline.inject(Fault("timeout", seconds=2))
    start = time.monotonic()
    with pytest.raises(openai.APITimeoutError):
        ask(client, timeout=0.5)
    assert time.monotonic() - start < 1.5
    assert ask(client).choices[0].message.content == "超时之后"  # the reply was not consumed


def test_fault_attached_to_a_scripted_reply(offline, client):
    offline.enqueue(
        ScriptedReply(text="一二三四五六", chunk_chars=1, fault=Fault("drop_stream", after_chunks=2)),
        ScriptedReply(text="完整"),
    )
    with pytest.raises(openai.APIConnectionError):
        list(ask(client, stream=True))
    assert ask(client).choices[0].message.content == "完整"


def test_faults_apply_in_order_one_per_request(offline, make_client):
    client = make_client(offline, max_retries=3)
    offline.enqueue(ScriptedReply(text="终于"))
    offline.inject(
        Fault("http_error", status=500, retry_after=0.01),
        Fault("http_error", status=503, retry_after=0.01),
        Fault("delay", seconds=0.01),
    )
    assert ask(client).choices[0].message.content == "终于"
    assert [r.status for r in offline.requests] == [500, 503, 200]
    assert [r.fault.kind for r in offline.requests] == ["http_error", "http_error", "delay"]


def test_invalid_faults_are_rejected():
    with pytest.raises(ValueError):
        Fault("explode")
    with pytest.raises(ValueError):
        Fault("http_error")
    assert Fault.from_dict(Fault("http_error", status=429, retry_after=1.5).to_dict()).retry_after == 1.5
