"""render_prompt / render_completion: DeepSeek-like serialisation."""

from __future__ import annotations

import json

from pixiu_cli.conversation.llm.template import ASSISTANT, BOS, USER, render_completion, render_prompt
from pixiu_cli.conversation.offline.script import ToolCallSpec

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_quote",
            "description": "查询行情",
            "parameters": {"type": "object", "properties": {"code": {"type": "string"}}},
        },
    },
    {
        "type": "function",
        "function": {"name": "remember", "description": "记住观点", "parameters": {"type": "object", "properties": {}}},
    },
]


def test_system_messages_are_hoisted_and_joined():
    scattered = {
        "messages": [
            {"role": "system", "content": "静态系统提示"},
            {"role": "user", "content": "问题一"},
            {"role": "system", "content": "场景片段"},
            {"role": "user", "content": "问题二"},
        ]
    }
    hoisted = {
        "messages": [
            {"role": "system", "content": "静态系统提示\n\n场景片段"},
            {"role": "user", "content": "问题一"},
            {"role": "user", "content": "问题二"},
        ]
    }
    text = render_prompt(scattered)
    assert text == render_prompt(hoisted)
    assert text.startswith(BOS + "静态系统提示\n\n场景片段" + USER + "问题一")
    assert text.endswith(USER + "问题二" + ASSISTANT)


def test_tools_follow_the_system_prompt_as_exact_json():
    text = render_prompt(
        {"messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "Q"}], "tools": TOOLS}
    )
    exact = json.dumps(TOOLS, ensure_ascii=False, separators=(",", ":"))
    assert exact in text
    assert text.index("S") < text.index(exact) < text.index(USER + "Q")
    reordered = render_prompt(
        {"messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "Q"}], "tools": TOOLS[::-1]}
    )
    assert reordered != text


def test_content_parts_render_like_strings():
    as_parts = {
        "messages": [{"role": "user", "content": [{"type": "text", "text": "你好"}, {"type": "text", "text": "世界"}]}]
    }
    assert render_prompt(as_parts) == render_prompt({"messages": [{"role": "user", "content": "你好世界"}]})


def test_tool_turns_render_names_arguments_and_call_ids():
    text = render_prompt(
        {
            "messages": [
                {"role": "user", "content": "茅台多少钱"},
                {
                    "role": "assistant",
                    "content": None,
                    "reasoning_content": "需要查行情",
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_quote", "arguments": '{"code":"600519"}'},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "call_1", "content": "1500.00"},
            ]
        }
    )
    assert "get_quote" in text and '{"code":"600519"}' in text
    assert "需要查行情" in text
    assert "call_1" in text and "1500.00" in text
    assert text.endswith(ASSISTANT)


def test_completion_renders_exactly_like_the_same_assistant_message_later():
    first = {"messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "Q1"}]}
    calls = [ToolCallSpec("get_quote", '{"code":"600519"}', id="call_a")]
    completion = render_completion("好的", "想一想", calls)
    follow_up = {
        "messages": [
            *first["messages"],
            {
                "role": "assistant",
                "content": "好的",
                "reasoning_content": "想一想",
                "tool_calls": [
                    {
                        "id": "call_a",
                        "type": "function",
                        "function": {"name": "get_quote", "arguments": '{"code":"600519"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_a", "content": "1500"},
        ]
    }
    assert render_prompt(follow_up).startswith(render_prompt(first) + completion)


def test_rendering_is_deterministic():
    request = {"messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "Q"}], "tools": TOOLS}
    assert render_prompt(request) == render_prompt(json.loads(json.dumps(request)))
