"""The client's own retries, deadline and body reading, through the real openai SDK over real
HTTP: the offline server's faults, and a hand-written bad server for what it cannot send."""

from __future__ import annotations

import json
import random
import time

import pytest

from pixiu_cli.conversation.llm.client import DEADLINE, HTML_PAGE, RETRYING, ChatClient
from pixiu_cli.conversation.llm.retry import RetryPolicy, parse_retry_after
from pixiu_cli.conversation.llm.types import CallOutcome, ChatRequest, LLMError
from pixiu_cli.conversation.offline.script import Fault, ScriptedReply, ToolCallSpec
from tests.bad_server import USAGE, BadServer, chunk, completion, send_body, send_events, trickle_forever
from tests.helpers import PLANTED_KEY

ASK = ChatRequest(messages=[{"role": "user", "content": "你好"}])


def client_for(base_url: str, retries: int = 2, timeout: float = 5.0, deadline: float = 60.0) -> ChatClient:
    return ChatClient(
        base_url=base_url,
        api_key=PLANTED_KEY,
        model="deepseek-test",
        provider="deepseek",
        timeout=timeout,
        max_retries=retries,
        deadline_seconds=deadline,
    )


def run(client: ChatClient, request: ChatRequest = ASK):
    outcome = CallOutcome()
    events = list(client.stream(request, outcome))
    return outcome, events


@pytest.fixture
def bad():
    server = BadServer()
    yield server
    server.stop()


# --- failures before any output are retried -------------------------------------------------------


@pytest.mark.parametrize(
    "fault",
    [
        Fault("drop_stream", after_chunks=0),
        Fault("drop_stream", after_chunks=1),
        Fault("malformed_chunk", after_chunks=0),
        Fault("malformed_chunk", after_chunks=1),
    ],
    ids=["dropped-at-once", "dropped-after-role", "malformed-first", "malformed-after-role"],
)
def test_stream_broken_before_the_first_delta_is_retried(server, fault):
    server.enqueue(ScriptedReply(text="不该出现的开头", chunk_chars=2, fault=fault), ScriptedReply(text="重试成功。"))
    outcome, events = run(client_for(server.base_url))
    assert events[0] == ("retry", RETRYING) and all(kind == "text" for kind, _ in events[1:])
    assert "".join(d for _, d in events[1:]) == "重试成功。"
    assert outcome.text == "重试成功。" and outcome.finish_reason == "stop" and outcome.attempts == 2
    assert [r.status for r in server.requests] == [200, 200]
    assert server.requests[0].body_bytes == server.requests[1].body_bytes  # the same request again


def test_without_retries_a_stream_broken_before_output_fails_in_one_line(server):
    server.enqueue(ScriptedReply(text="开头", fault=Fault("drop_stream", after_chunks=1)))
    with pytest.raises(LLMError) as info:
        run(client_for(server.base_url, retries=0))
    assert info.value.kind == "dropped" and not info.value.after_output and len(server.requests) == 1


def test_tool_call_cut_before_any_text_is_retried(server):
    """Tool-call deltas are not shown to the user, so a cut among them is still 'before output'."""
    server.enqueue(
        ScriptedReply(
            tool_calls=[ToolCallSpec("get_holdings", '{"symbol": "600519"}')],
            fault=Fault("drop_stream", after_chunks=2),
        ),
        ScriptedReply(tool_calls=[ToolCallSpec("get_holdings", '{"symbol": "600519"}')]),
    )
    outcome, events = run(client_for(server.base_url))
    assert events == [("retry", RETRYING)]
    assert [(t.name, json.loads(t.arguments)) for t in outcome.tool_calls] == [("get_holdings", {"symbol": "600519"})]


def test_stream_cut_after_output_is_not_retried_by_the_client(server):
    server.enqueue(
        ScriptedReply(text="这是一段会被掐断的回复", chunk_chars=2, fault=Fault("drop_stream", after_chunks=3))
    )
    outcome = CallOutcome()
    with pytest.raises(LLMError) as info:
        list(client_for(server.base_url).stream(ASK, outcome))
    assert info.value.kind == "dropped" and info.value.after_output
    assert outcome.text == "这是一段" and len(server.requests) == 1


def test_retry_after_is_honoured(server):
    server.inject(Fault("http_error", status=429, retry_after=0.8))
    server.enqueue(ScriptedReply(text="等过之后成功。"))
    outcome, events = run(client_for(server.base_url))
    first, second = server.requests
    assert second.received_at - first.received_at >= 0.8
    assert outcome.text == "等过之后成功。" and events[0] == ("retry", RETRYING)
    assert [kind for kind, _ in events].count("retry") == 1


def test_retryable_statuses_back_off_and_non_retryable_do_not_retry(server):
    server.inject(Fault("http_error", status=503), Fault("http_error", status=500))
    server.enqueue(ScriptedReply(text="第三次成功。"))
    outcome, _ = run(client_for(server.base_url, retries=3))
    assert outcome.text == "第三次成功。" and outcome.attempts == 3
    times = [r.received_at for r in server.requests]
    assert times[1] - times[0] >= 0.25 and times[2] - times[1] >= 0.5  # doubling, never shorter
    server.reset()
    for status in (400, 401, 402, 403, 404, 422):
        server.inject(Fault("http_error", status=status))
        with pytest.raises(LLMError) as info:
            run(client_for(server.base_url, retries=3))
        assert info.value.status == status
    assert len(server.requests) == 6  # one attempt each


def test_retries_stop_at_the_deadline(server):
    """A Retry-After longer than what is left of the deadline is not waited for."""
    server.inject(Fault("http_error", status=429, retry_after=5))
    started = time.monotonic()
    with pytest.raises(LLMError) as info:
        run(client_for(server.base_url, retries=5, deadline=2.0))
    assert time.monotonic() - started < 1.5 and len(server.requests) == 1
    assert str(info.value) == "请求过于频繁（429），已重试 0 次，请稍后再试。"


def test_backoff_is_jittered_and_never_shrinks():
    policy = RetryPolicy(max_retries=6)
    runs = [[policy.delay(n, None, random.Random(seed)) for n in range(1, 7)] for seed in range(50)]
    for delays in runs:
        assert all(later >= earlier for earlier, later in zip(delays, delays[1:])), delays
        assert 0.25 <= delays[0] <= 0.5 and delays[-1] <= 8.0
    assert len({round(d[0], 6) for d in runs}) > 40  # jittered: clients do not come back in step
    assert policy.delay(7, None) is None  # the budget is spent
    assert policy.delay(1, 130.0) is None  # a server asking for more than two minutes is not waited for
    assert 3.0 <= policy.delay(1, 3.0) <= 3.3


def test_retry_after_headers():
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert parse_retry_after({"retry-after": "2"}) == 2.0
    when = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 30))
    assert 28 <= parse_retry_after({"retry-after": when}) <= 31
    assert parse_retry_after({"retry-after": "soon"}) is None and parse_retry_after({}) is None


# --- what a 200 body can be ------------------------------------------------------------------------


def test_a_plain_json_completion_is_the_answer(bad):
    """A server (or proxy) that ignores "stream": true and answers with one JSON completion."""
    bad.respond = lambda h: send_body(h, "application/json", json.dumps(completion("非流式的完整回答。")).encode())
    outcome, events = run(client_for(bad.base_url))
    assert events == [("text", "非流式的完整回答。")]
    assert outcome.finish_reason == "stop" and outcome.usage.prompt_tokens == 5 and bad.requests == 1


def test_an_html_page_is_named_and_not_retried(bad):
    page = b"<!DOCTYPE html><html><head><title>Wi-Fi Login</title></head><body>Sign in</body></html>"
    bad.respond = lambda h: send_body(h, "text/html; charset=utf-8", page)
    with pytest.raises(LLMError) as info:
        run(client_for(bad.base_url))
    assert str(info.value) == HTML_PAGE and "\n" not in HTML_PAGE and bad.requests == 1


def test_an_event_stream_with_a_wrong_content_type_is_read(bad):
    events = [chunk("你好", role="assistant"), chunk(finish="stop"), "[DONE]"]
    body = "".join(f"data: {e}\n\n" for e in events).encode()
    bad.respond = lambda h: send_body(h, "text/plain", body)
    outcome, _ = run(client_for(bad.base_url))
    assert outcome.text == "你好" and outcome.finish_reason == "stop"


def test_a_malformed_chunk_after_the_finish_reason_is_skipped(bad):
    """The usage chunk arrives broken: nothing of the answer can be missing, so it is kept."""
    bad.respond = lambda h: send_events(
        h, [chunk("完整回答", role="assistant"), chunk(finish="stop"), USAGE[: len(USAGE) // 2], "[DONE]"]
    )
    outcome, _ = run(client_for(bad.base_url))
    assert outcome.text == "完整回答" and outcome.finish_reason == "stop" and bad.requests == 1


def test_a_malformed_chunk_before_the_finish_reason_is_a_cut(bad):
    """It may have carried part of the answer: the reply cannot be called complete."""
    bad.respond = lambda h: send_events(
        h,
        [
            chunk("开头", role="assistant"),
            '{"choices": [{"delta": {"cont',
            chunk("结尾"),
            chunk(finish="stop"),
            "[DONE]",
        ],
    )
    outcome = CallOutcome()
    with pytest.raises(LLMError) as info:
        list(client_for(bad.base_url, retries=0).stream(ASK, outcome))
    assert info.value.kind == "malformed" and "JSONDecodeError" in str(info.value)
    assert outcome.text == "开头"  # what arrived before it is kept; reading stops there


@pytest.mark.parametrize(
    "events",
    [
        [chunk("回答", role="assistant"), chunk(finish="stop"), USAGE],  # cleanly closed, no [DONE]
        [chunk("回答", role="assistant"), "[DONE]"],  # [DONE] but no finish reason
    ],
    ids=["no-done", "no-finish-reason"],
)
def test_a_stream_that_ends_early_but_cleanly_is_a_cut(bad, events):
    bad.respond = lambda h: send_events(h, events)
    with pytest.raises(LLMError) as info:
        run(client_for(bad.base_url, retries=0))
    assert info.value.kind == "dropped" and info.value.after_output


# --- the total deadline ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("piece", "shown"),
    [(b": keep-alive\n\n", ""), (("data: " + chunk("字") + "\n\n").encode(), "字")],
    ids=["keep-alive-forever", "one-character-at-a-time"],
)
def test_a_server_that_never_finishes_meets_the_deadline(bad, piece, shown):
    bad.respond = trickle_forever(bad, piece, pause=0.2)
    outcome = CallOutcome()
    started = time.monotonic()
    with pytest.raises(LLMError) as info:
        list(client_for(bad.base_url, timeout=1.0, deadline=2.0).stream(ASK, outcome))
    assert 1.9 <= time.monotonic() - started < 4.0
    assert str(info.value) == DEADLINE.format(seconds=2) and info.value.kind == "deadline"
    assert outcome.text.startswith(shown) and bad.requests == 1  # the deadline is not retried


def test_event_framing_survives_any_split_of_the_bytes():
    from pixiu_cli.conversation.llm.wire import SSEDecoder

    raw = 'data: {"a": "一"}\r\n\r\n: keep-alive\n\ndata: x\ndata: y\n\nevent: e\ndata:[DONE]\n\n'.encode()
    for size in (1, 2, 3, 7, len(raw)):
        decoder, events = SSEDecoder(), []
        for start in range(0, len(raw), size):
            events += decoder.feed(raw[start : start + size])
        assert events + decoder.close() == ['{"a": "一"}', "x\ny", "[DONE]"], size
