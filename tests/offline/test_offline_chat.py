"""Chat completions through the real openai SDK over real HTTP."""

from __future__ import annotations

import json
import threading
import time
import urllib.error

import openai
import pytest

from pixiu_cli.conversation.offline import Fault, OfflineServer, ScriptedReply, ToolCallSpec
from tests.helpers import OfflineControl

MODEL = "deepseek-flash"
HELLO = [{"role": "user", "content": "你好"}]


def collect(stream):
    """Content, reasoning, tool calls (assembled by index), finish reasons, usage, chunks."""
    text, reasoning, calls, finishes, usage, count = [], [], {}, [], None, 0
    for chunk in stream:
        count += 1
        if chunk.usage is not None:
            usage = chunk.usage
        for choice in chunk.choices:
            delta = choice.delta
            if delta.content:
                text.append(delta.content)
            if getattr(delta, "reasoning_content", None):
                reasoning.append(delta.reasoning_content)
            for call in delta.tool_calls or []:
                entry = calls.setdefault(call.index, {"id": None, "name": "", "arguments": ""})
                if call.id:
                    entry["id"] = call.id
                if call.function and call.function.name:
                    entry["name"] += call.function.name
                if call.function and call.function.arguments:
                    entry["arguments"] += call.function.arguments
            if choice.finish_reason:
                finishes.append(choice.finish_reason)
    return {
        "text": "".join(text),
        "reasoning": "".join(reasoning),
        "calls": calls,
        "finish": finishes,
        "usage": usage,
        "chunks": count,
    }


def test_non_streaming_text(offline, client):
    offline.enqueue(ScriptedReply(text="贵州茅台是白酒龙头。"))
    reply = client.chat.completions.create(model=MODEL, messages=HELLO)
    assert reply.choices[0].message.content == "贵州茅台是白酒龙头。"
    assert reply.choices[0].message.role == "assistant"
    assert reply.choices[0].finish_reason == "stop"
    assert reply.model == MODEL
    assert reply.usage.prompt_tokens > 0 and reply.usage.completion_tokens > 0
    assert reply.usage.total_tokens == reply.usage.prompt_tokens + reply.usage.completion_tokens


def test_streaming_text_in_chunk_chars_pieces(offline, client):
    offline.enqueue(ScriptedReply(text="一二三四五六七", chunk_chars=2))
    stream = client.chat.completions.create(model=MODEL, messages=HELLO, stream=True)
    pieces = [c.choices[0].delta.content for c in stream if c.choices and c.choices[0].delta.content]
    assert pieces == ["一二", "三四", "五六", "七"]


def test_streaming_final_usage_chunk(offline, client):
    offline.enqueue(ScriptedReply(text="好"))
    chunks = list(
        client.chat.completions.create(model=MODEL, messages=HELLO, stream=True, stream_options={"include_usage": True})
    )
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-2].choices[0].finish_reason == "stop"
    assert all(c.usage is None for c in chunks[:-1])
    plain = list(client.chat.completions.create(model=MODEL, messages=HELLO, stream=True))
    assert all(c.usage is None for c in plain)


def test_streamed_parallel_tool_calls_assemble(offline, client):
    offline.enqueue(
        ScriptedReply(
            text="我查一下。",
            tool_calls=[
                ToolCallSpec("get_quote", '{"code": "600519", "fields": ["price", "pe"]}'),
                ToolCallSpec("get_news", '{"code": "000001"}', id="call_fixed"),
            ],
            chunk_chars=5,
        )
    )
    result = collect(client.chat.completions.create(model=MODEL, messages=HELLO, stream=True))
    assert result["text"] == "我查一下。"
    assert result["finish"] == ["tool_calls"]
    first, second = result["calls"][0], result["calls"][1]
    assert first["name"] == "get_quote"
    assert json.loads(first["arguments"]) == {"code": "600519", "fields": ["price", "pe"]}
    assert first["id"].startswith("call_")
    assert second == {"id": "call_fixed", "name": "get_news", "arguments": '{"code": "000001"}'}


def test_non_streaming_tool_calls_keep_invalid_arguments_verbatim(offline, client):
    offline.enqueue(ScriptedReply(tool_calls=[ToolCallSpec("get_quote", '{"code": 6005')]))
    reply = client.chat.completions.create(model=MODEL, messages=HELLO)
    message = reply.choices[0].message
    assert reply.choices[0].finish_reason == "tool_calls"
    assert message.content is None
    assert message.tool_calls[0].function.name == "get_quote"
    assert message.tool_calls[0].function.arguments == '{"code": 6005'
    assert message.tool_calls[0].type == "function"


def test_tool_call_ids_are_deterministic_per_request(offline, client):
    spec = ScriptedReply(tool_calls=[ToolCallSpec("a", "{}"), ToolCallSpec("b", "{}")])
    offline.enqueue(spec, spec)
    ids = [
        [c.id for c in client.chat.completions.create(model=MODEL, messages=HELLO).choices[0].message.tool_calls]
        for _ in range(2)
    ]
    assert ids[0] == ids[1] and len(set(ids[0])) == 2


def test_reasoning_content_streamed_and_not(offline, client):
    offline.enqueue(
        ScriptedReply(text="结论", reasoning="先想想估值"), ScriptedReply(text="结论", reasoning="先想想估值")
    )
    reply = client.chat.completions.create(model=MODEL, messages=HELLO)
    assert reply.choices[0].message.reasoning_content == "先想想估值"
    assert reply.usage.completion_tokens_details.reasoning_tokens > 0
    result = collect(client.chat.completions.create(model=MODEL, messages=HELLO, stream=True))
    assert result["reasoning"] == "先想想估值" and result["text"] == "结论"


def test_scripted_queue_is_fifo_then_falls_back_to_the_responder(offline, client):
    offline.enqueue(ScriptedReply(text="A"), ScriptedReply(text="B"), "C")
    answers = [client.chat.completions.create(model=MODEL, messages=HELLO).choices[0].message.content for _ in range(4)]
    assert answers[:3] == ["A", "B", "C"]
    assert "离线" in answers[3]
    assert offline.pending_replies == 0


def test_slow_stream_arrives_incrementally(offline, client):
    # 0.7 s between the first piece and the last: a loaded machine that reads the first
    # piece a little late still sees the others come later
    offline.enqueue(ScriptedReply(text="x" * 8, chunk_chars=1, chunk_delay=0.1))
    start = time.monotonic()
    arrivals = []
    for chunk in client.chat.completions.create(model=MODEL, messages=HELLO, stream=True):
        if chunk.choices and chunk.choices[0].delta.content:
            arrivals.append(time.monotonic() - start)
    assert len(arrivals) == 8
    assert arrivals[-1] >= 0.7
    assert arrivals[0] < arrivals[-1] - 0.4  # the first piece did not wait for the last


def test_request_log_keeps_exact_bytes_and_headers(offline, client):
    messages = [{"role": "system", "content": "系统"}, {"role": "user", "content": "问题"}]
    client.chat.completions.create(model=MODEL, messages=messages, temperature=0.3)
    (recorded,) = offline.requests
    assert json.loads(recorded.body_bytes) == recorded.json
    assert recorded.json["messages"] == messages and recorded.json["temperature"] == 0.3
    # The log proves which key was sent without keeping it.
    assert recorded.headers["authorization"] != "Bearer sk-test" and "sk-test" not in repr(recorded)
    assert recorded.sent_key("sk-test") and not recorded.sent_key("sk-other")
    assert recorded.status == 200 and recorded.usage["prompt_tokens"] > 0


def test_models_lists_offline_model_and_the_last_requested(offline, client):
    assert [m.id for m in client.models.list()] == ["pixiu-offline"]
    client.chat.completions.create(model="deepseek-v4-pro", messages=HELLO)
    assert [m.id for m in client.models.list()] == ["pixiu-offline", "deepseek-v4-pro"]


def test_routes_without_v1_prefix_work_like_deepseek(offline, make_client):
    client = openai.OpenAI(base_url=offline.url, api_key="sk-test", max_retries=0)
    try:
        offline.enqueue("无前缀")
        assert client.chat.completions.create(model=MODEL, messages=HELLO).choices[0].message.content == "无前缀"
    finally:
        client.close()


def test_missing_or_empty_key_is_401(offline, raw_http):
    body = {"model": MODEL, "messages": HELLO}
    for headers in ({}, {"Authorization": "Bearer "}, {"Authorization": "Basic abc"}):
        status, _, payload = raw_http(offline, "POST", "/v1/chat/completions", body, headers)
        assert status == 401
        error = json.loads(payload)["error"]
        assert error["type"] == "authentication_error" and error["message"]
    status, _, _ = raw_http(offline, "GET", "/v1/models")
    assert status == 401


def test_sdk_sees_401_as_authentication_error(offline):
    # The SDK always sends a bearer key; override the header with a non-bearer scheme.
    client = openai.OpenAI(
        base_url=offline.base_url, api_key="sk-test", max_retries=0, default_headers={"Authorization": "Token abc"}
    )
    try:
        with pytest.raises(openai.AuthenticationError):
            client.chat.completions.create(model=MODEL, messages=HELLO)
    finally:
        client.close()


def test_bad_json_and_missing_messages_are_400(offline, raw_http, client):
    auth = {"Authorization": "Bearer sk-test"}
    status, headers, payload = raw_http(offline, "POST", "/v1/chat/completions", b"{not json", auth)
    assert status == 400 and "JSON" in json.loads(payload)["error"]["message"]
    assert headers["content-length"] == str(len(payload))
    status, _, payload = raw_http(offline, "POST", "/v1/chat/completions", {"model": MODEL}, auth)
    assert status == 400 and "messages" in json.loads(payload)["error"]["message"]
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model=MODEL, messages=[])
    assert [r.status for r in offline.requests] == [400, 400, 400]


def test_control_endpoints_over_http(offline, client, raw_http, control_headers):
    status, _, payload = raw_http(
        offline,
        "POST",
        "/_pixiu/script",
        [{"text": "脚本一"}, {"text": "", "tool_calls": [{"name": "f", "arguments": {"a": 1}}]}],
        control_headers,
    )
    assert status == 200 and json.loads(payload)["pending"] == 2
    status, _, _ = raw_http(offline, "POST", "/_pixiu/faults", [{"kind": "http_error", "status": 503}], control_headers)
    assert status == 200

    with pytest.raises(openai.InternalServerError):
        client.chat.completions.create(model=MODEL, messages=HELLO)
    assert client.chat.completions.create(model=MODEL, messages=HELLO).choices[0].message.content == "脚本一"
    call = client.chat.completions.create(model=MODEL, messages=HELLO).choices[0].message.tool_calls[0]
    assert (call.function.name, json.loads(call.function.arguments)) == ("f", {"a": 1})

    status, _, payload = raw_http(offline, "GET", "/_pixiu/requests", None, control_headers)
    log = json.loads(payload)
    assert [entry["status"] for entry in log] == [503, 200, 200]
    assert log[0]["json"]["messages"] == HELLO and log[0]["fault"]["status"] == 503
    assert json.loads(log[1]["body"]) == log[1]["json"]
    assert "sk-test" not in payload.decode()  # the log never carries the key

    status, _, _ = raw_http(offline, "POST", "/_pixiu/faults", [{"kind": "no_such_fault"}], control_headers)
    assert status == 400
    status, _, _ = raw_http(offline, "POST", "/_pixiu/reset", {}, control_headers)
    assert status == 200
    assert offline.requests == [] and offline.pending_faults == 0


PLANTED_TRADE = [{"text": "卖出 600519 100 股 @ 1"}]


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/_pixiu/script", PLANTED_TRADE),
        ("POST", "/_pixiu/faults", [{"kind": "http_error", "status": 500}]),
        ("POST", "/_pixiu/reset", {}),
        ("GET", "/_pixiu/requests", None),
    ],
)
def test_control_routes_do_not_exist_on_a_server_not_started_for_tests(make_server, raw_http, method, path, body):
    server = make_server()  # as `pixiu` itself starts it in offline mode
    assert server.control_token is None
    status, _, _ = raw_http(server, method, path, body)
    assert status == 404
    assert server.pending_replies == 0 and server.pending_faults == 0


@pytest.mark.parametrize(
    "headers",
    [{}, {"X-Pixiu-Control-Token": "guessed"}, {"X-Pixiu-Control-Token": ""}],
    ids=["no-token", "wrong-token", "empty-token"],
)
def test_control_routes_need_the_run_token(offline, raw_http, headers):
    offline.enqueue("keep me")
    for method, path, body in (
        ("POST", "/_pixiu/script", PLANTED_TRADE),
        ("POST", "/_pixiu/reset", {}),
        ("GET", "/_pixiu/requests", None),
    ):
        status, _, _ = raw_http(offline, method, path, body, headers)
        assert status == 403, path
    assert offline.pending_replies == 1  # neither planted nor reset


def test_control_routes_take_only_json(offline, raw_http, control_headers):
    """A web page can POST text/plain (or a form) to loopback without a preflight; not JSON."""
    body = json.dumps(PLANTED_TRADE).encode()
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
        status, _, _ = raw_http(
            offline, "POST", "/_pixiu/script", body, {**control_headers, "Content-Type": content_type}
        )
        assert status == 415, content_type
    assert offline.pending_replies == 0


def test_a_second_server_has_another_token(make_server):
    first, second = make_server(control=True), make_server(control=True)
    assert first.control_token and second.control_token and first.control_token != second.control_token


def test_offline_control_client(offline, client):
    control = OfflineControl(offline.base_url, offline.control_token)
    assert control.enqueue(ScriptedReply(text="遥控"), "第二条") == 2
    assert control.inject(Fault("delay", seconds=0.01)) == 1
    assert client.chat.completions.create(model=MODEL, messages=HELLO).choices[0].message.content == "遥控"
    assert control.requests()[0]["fault"]["kind"] == "delay"
    control.reset()
    assert control.requests() == [] and offline.pending_replies == 0
    with pytest.raises(urllib.error.HTTPError) as info:
        OfflineControl(offline.base_url, "wrong").enqueue("planted")
    assert info.value.code == 403 and offline.pending_replies == 0


def test_reset_clears_queue_faults_cache_and_log(offline, client):
    offline.enqueue("A")
    offline.inject(Fault("http_error", status=500))
    offline.reset()
    assert offline.pending_replies == 0 and offline.pending_faults == 0 and offline.requests == []
    assert "离线" in client.chat.completions.create(model=MODEL, messages=HELLO).choices[0].message.content


def test_serve_in_foreground_runs_until_stopped():
    """What `pixiu offline-server` does: bind, then serve from the calling thread."""
    server = OfflineServer(cache_profile="none").bind()
    thread = threading.Thread(target=server.serve_in_foreground, daemon=True)
    thread.start()
    client = openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)
    try:
        reply = client.chat.completions.create(model=MODEL, messages=HELLO)
        assert "离线" in reply.choices[0].message.content
    finally:
        client.close()
    server.stop()
    thread.join(5)
    assert not thread.is_alive()


def test_restartable_and_context_manager():
    with OfflineServer() as server:
        port = server.port
        assert server.base_url == f"http://127.0.0.1:{port}/v1"
    with pytest.raises(RuntimeError):
        _ = server.port


def test_client_closing_a_slow_stream_leaves_the_server_healthy(offline, client):
    offline.enqueue(ScriptedReply(text="很慢的回答" * 20, chunk_chars=1, chunk_delay=0.02), "下一条")
    stream = client.chat.completions.create(model=MODEL, messages=HELLO, stream=True)
    for count, _ in enumerate(stream, start=1):
        if count == 3:
            break
    stream.close()  # what the REPL does on Ctrl-C
    start = time.monotonic()
    assert client.chat.completions.create(model=MODEL, messages=HELLO).choices[0].message.content == "下一条"
    assert time.monotonic() - start < 1.0
