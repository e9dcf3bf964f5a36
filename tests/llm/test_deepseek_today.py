"""DeepSeek as it is today, over real HTTP through the real SDK to the offline server: the
default model is a current one, a retired name gets one line naming its replacement, the
thinking-mode switch reaches the wire only for providers that know it, and a tool-using
turn's reasoning goes back byte for byte in every later request (DeepSeek refuses the
request otherwise, and so does the offline server)."""

from __future__ import annotations

import json

import openai
import pytest

from pixiu_cli.conversation.llm.model import CURRENT_DEEPSEEK_MODELS
from pixiu_cli.conversation.offline.responder import REASONING_MISSING
from pixiu_cli.conversation.offline.script import ScriptedReply
from pixiu_cli.conversation.tokenizer.counts import count_tokens
from tests.helpers import PLANTED_KEY, clean_env, pixiu_in_process


@pytest.fixture
def deepseek_env(server, pixiu_home):
    """A DeepSeek key and nothing else but the address (the loopback server stands in for
    api.deepseek.com): no model, no thinking setting."""
    return clean_env(pixiu_home, DEEPSEEK_API_KEY=PLANTED_KEY, PIXIU_BASE_URL=server.base_url, PIXIU_MAX_RETRIES="0")


def _bodies(server) -> list[dict]:
    return [json.loads(r.body_bytes) for r in server.requests if r.path.endswith("/chat/completions")]


def test_a_deepseek_key_alone_names_a_current_model(server, deepseek_env):
    server.enqueue(ScriptedReply(text="好的。"))
    done = pixiu_in_process(deepseek_env, "ask", "你好", text=True)
    assert done.returncode == 0, done.stderr
    (body,) = _bodies(server)
    assert body["model"] == "deepseek-flash" and body["model"] in CURRENT_DEEPSEEK_MODELS
    assert "thinking" not in body and "reasoning_effort" not in body  # unset: DeepSeek's default applies


def test_a_retired_model_gets_one_line_naming_its_replacement(server, deepseek_env):
    done = pixiu_in_process(dict(deepseek_env, PIXIU_MODEL="deepseek-chat"), "ask", "你好", text=True)
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert (
        lines[-1] == "错误：模型 deepseek-chat 已停用，请改用 deepseek-flash（pixiu config set model deepseek-flash）"
    )
    assert PLANTED_KEY not in done.stderr + done.stdout


def test_thinking_settings_go_in_the_body_for_deepseek_only(server, deepseek_env, pixiu_home):
    (pixiu_home / "config.toml").write_text('[llm]\nthinking = "disabled"\nreasoning_effort = "max"\n')
    server.enqueue(ScriptedReply(text="好"), ScriptedReply(text="好"))
    assert pixiu_in_process(deepseek_env, "ask", "你好", text=True).returncode == 0
    other = dict(deepseek_env, PIXIU_API_KEY=PLANTED_KEY, PIXIU_MODEL="qwen2.5:7b")
    assert pixiu_in_process(other, "ask", "你好", text=True).returncode == 0
    deepseek, generic = _bodies(server)
    assert (deepseek["thinking"], deepseek["reasoning_effort"]) == ({"type": "disabled"}, "max")
    assert "thinking" not in generic and "reasoning_effort" not in generic


@pytest.mark.parametrize(("key", "value"), [("thinking", "on"), ("reasoning_effort", "extreme")])
def test_a_bad_thinking_setting_is_one_line(deepseek_env, key, value):
    done = pixiu_in_process(dict(deepseek_env, **{f"PIXIU_{key.upper()}": value}), "ask", "你好", text=True)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1].startswith(f"错误：设置 {key} 应为 ")


def test_three_turns_with_a_tool_call_in_thinking_mode(server, deepseek_env):
    env = dict(deepseek_env, PIXIU_THINKING="enabled")
    for args in (("你好",), ("--continue", "我的计划：茅台跌到1500加仓"), ("--continue", "好的")):
        done = pixiu_in_process(env, "ask", *args, text=True)
        assert done.returncode == 0, done.stderr
    bodies = _bodies(server)
    assert all(b["thinking"] == {"type": "enabled"} for b in bodies)
    assert all(r.status == 200 for r in server.requests)
    # Turn 2 made a tool call (remember) and then answered: two calls, two reasonings.
    tool_turn = [b for b in bodies if any(m.get("role") == "tool" for m in b["messages"])]
    assert tool_turn, "the second turn called no tool"
    third = bodies[-1]["messages"]
    turn_two = _span_after(third, "我的计划：茅台跌到1500加仓")
    sent = [m["reasoning_content"] for m in turn_two if m["role"] == "assistant"]
    assert len(sent) == 2 and all(sent)
    # Byte for byte what the model sent: the raw request holds the very strings the replies carried.
    replies = [_reply_reasoning(server, i) for i in range(len(bodies))]
    assert sent == [r for r in replies[1:3]]
    raw = server.requests[-1].body_bytes.decode("utf-8")
    assert all(json.dumps(r, ensure_ascii=False) in raw for r in sent)
    # The first turn called no tool: its reasoning is not sent back.
    turn_one = _span_after(third, "你好")
    assert all("reasoning_content" not in m for m in turn_one)
    # /context shows the reasoning sent back as its own part of the history, with its tokens.
    table = pixiu_in_process(env, "context", text=True).stdout  # a pipe: one tab-separated row a line
    rows = [line.split("\t") for line in table.splitlines() if "history · reasoning" in line]
    assert [(row[2], row[3]) for row in rows] == [("assistant", f"{count_tokens(r):,}") for r in sent]


def _span_after(messages: list[dict], question: str) -> list[dict]:
    """The messages after the user message `question`, up to the next user message."""
    start = next(i for i, m in enumerate(messages) if m["role"] == "user" and m["content"] == question)
    span = []
    for message in messages[start + 1 :]:
        if message["role"] == "user":
            break
        span.append(message)
    return span


def _reply_reasoning(server, index: int) -> str:
    """The reasoning the server streamed for chat request `index`, read back from the next
    request that carries that reply (or '' when none does)."""
    body = json.loads(server.requests[index].body_bytes)
    later = [json.loads(r.body_bytes) for r in server.requests[index + 1 :]]
    seen = len([m for m in body["messages"] if m["role"] == "assistant"])
    for other in later:
        assistants = [m for m in other["messages"] if m["role"] == "assistant"]
        if len(assistants) > seen:
            return assistants[seen].get("reasoning_content", "")
    return ""


def test_the_server_refuses_a_tool_turn_without_its_reasoning(server):
    client = openai.OpenAI(base_url=server.base_url, api_key=PLANTED_KEY, max_retries=0)
    messages = [
        {"role": "user", "content": "茅台"},
        {"role": "assistant", "content": "", "tool_calls": [_tool_call()]},
        {"role": "tool", "tool_call_id": "c1", "content": "{}"},
        {"role": "assistant", "content": "答", "reasoning_content": "想过了"},
        {"role": "user", "content": "好的"},
    ]
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(
            model="deepseek-flash", messages=messages, extra_body={"thinking": {"type": "enabled"}}
        )
    assert REASONING_MISSING in str(refused.value)
    messages[1]["reasoning_content"] = "先查"
    reply = client.chat.completions.create(
        model="deepseek-flash", messages=messages, extra_body={"thinking": {"type": "enabled"}}
    )
    assert reply.choices[0].message.content
    # Without thinking the rule does not apply, as on DeepSeek.
    del messages[1]["reasoning_content"]
    assert client.chat.completions.create(model="deepseek-flash", messages=messages).choices[0].message.content


def _tool_call() -> dict:
    return {"id": "c1", "type": "function", "function": {"name": "get_holdings", "arguments": "{}"}}


def test_the_server_refuses_retired_models_as_deepseek_does(server):
    client = openai.OpenAI(base_url=server.base_url, api_key=PLANTED_KEY, max_retries=0)
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model="deepseek-reasoner", messages=[{"role": "user", "content": "你好"}])
    assert "Model Not Exist" in str(refused.value)


def test_pixiu_cache_prices_the_default_model(server, deepseek_env):
    server.enqueue(ScriptedReply(text="好的。"))
    assert pixiu_in_process(deepseek_env, "ask", "茅台怎么看", text=True).returncode == 0
    shown = pixiu_in_process(deepseek_env, "cache", text=True)
    assert "CNY" in shown.stdout and "只显示 tokens" not in shown.stdout
    report = json.loads(pixiu_in_process(deepseek_env, "cache", "--json", text=True).stdout)
    assert report["totals"]["all_time"]["cost"] > 0
