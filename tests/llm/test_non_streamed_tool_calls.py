"""A server that ignores `"stream": true` and answers with one whole completion carrying two
tool calls: OpenAI's non-streamed format gives them no `index`, and they were folded into
one call named `get_stock_profilesget_holdings`. Each is its own call now, run and answered
on its own, through the real `openai` SDK and `pixiu ask`."""

from __future__ import annotations

import json

import pytest

from tests.bad_server import BadServer, completion, send_body
from tests.helpers import FIXTURE, clean_env, pixiu_in_process


@pytest.fixture
def bad():
    server = BadServer()
    yield server
    server.stop()


def two_calls() -> dict:
    calls = [
        {"id": "call_a", "type": "function", "function": {"name": "get_stock_profiles", "arguments": '{"symbols": ["600519"]}'}},
        {"id": "call_b", "type": "function", "function": {"name": "get_holdings", "arguments": "{}"}},
    ]  # fmt: skip
    body = completion("")
    body["choices"][0]["message"] = {"role": "assistant", "content": None, "tool_calls": calls}
    body["choices"][0]["finish_reason"] = "tool_calls"
    return body


def test_two_tool_calls_in_a_whole_completion_stay_two(bad, tmp_path):
    answers = iter([two_calls(), completion("持仓与茅台的资料都看过了。")])
    bad.respond = lambda h: send_body(h, "application/json", json.dumps(next(answers), ensure_ascii=False).encode())
    env = clean_env(tmp_path / "home", PIXIU_API_KEY="sk-test-0000", PIXIU_BASE_URL=bad.base_url, PIXIU_MODEL="m")
    assert pixiu_in_process(env, "import", str(FIXTURE)).returncode == 0
    done = pixiu_in_process(env, "ask", "看看持仓和茅台", text=True)
    assert done.returncode == 0, done.stderr
    assert "持仓与茅台的资料都看过了。" in done.stdout
    messages = json.loads(bad.bodies[-1])["messages"]
    (asked,) = [m for m in messages if m["role"] == "assistant" and m.get("tool_calls")]
    assert [(c["id"], c["function"]["name"]) for c in asked["tool_calls"]] == [
        ("call_a", "get_stock_profiles"),
        ("call_b", "get_holdings"),
    ]
    assert json.loads(asked["tool_calls"][0]["function"]["arguments"]) == {"symbols": ["600519"]}
    results = {m["tool_call_id"]: json.loads(m["content"]) for m in messages if m["role"] == "tool"}
    assert set(results) == {"call_a", "call_b"}, results
    assert [p["symbol"] for p in results["call_a"]["profiles"]] == ["600519"]
    assert "600519" in [h["symbol"] for h in results["call_b"]["holdings"]]
