"""The deterministic offline responder (what a user without an API key talks to)."""

from __future__ import annotations

from pixiu_cli.offline import respond

CONTEXT = """[上下文信息]
## 当前时间
- 2026-05-06 10:30（周三，交易中）
## 持仓
- 600519 贵州茅台 100 股
- 002415 海康威视 500 股
- 000001 平安银行 1000 股
【用户笔记】
1. 海康估值偏高，回踩 30 元再加仓
2. 不追涨杀跌
"""


def conversation(question="茅台现在能加仓吗？", history_turns=2, with_context=True):
    messages = [{"role": "system", "content": "你是 pixiu。"}]
    for i in range(history_turns):
        messages += [{"role": "user", "content": f"旧问题{i}"}, {"role": "assistant", "content": f"旧回答{i}"}]
    if with_context:
        messages.append({"role": "user", "content": CONTEXT})
    messages.append({"role": "user", "content": question})
    return {"model": "pixiu-offline", "messages": messages}


def test_says_offline_and_quotes_the_last_user_message():
    text = respond(conversation(), keyless=True).text
    assert text.startswith("（离线模式：未配置 API key")
    assert "不是真实模型" in text and "DEEPSEEK_API_KEY" in text
    assert "「茅台现在能加仓吗？」" in text


def test_as_an_external_server_it_makes_no_claim_about_keys():
    text = respond(conversation()).text
    assert text.startswith("（pixiu 离线服务") and "不是真实模型" in text
    assert "API key" not in text and "DEEPSEEK_API_KEY" not in text and "未配置" not in text


def test_summarises_context_sections_items_and_history():
    text = respond(conversation()).text
    assert "3 个部分，共 6 条" in text
    assert "当前时间：1 条" in text and "持仓：3 条" in text and "用户笔记：2 条" in text
    assert "历史对话：2 轮" in text
    assert "系统提示：1 条" in text


def test_without_context_block():
    text = respond(conversation(history_turns=0, with_context=False)).text
    assert "本轮没有附带" in text and "历史对话：0 轮" in text


def test_deterministic():
    assert respond(conversation()) == respond(conversation())
    assert respond(conversation()).text != respond(conversation(question="别的问题")).text


def test_mentions_tools_and_tool_results():
    request = conversation(history_turns=0)
    request["tools"] = [{"type": "function", "function": {"name": "get_quote", "parameters": {}}}]
    request["messages"] += [
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_quote", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "1500.00"},
    ]
    text = respond(request).text
    assert "可用工具：1 个（get_quote）" in text
    assert "工具结果：1 条（get_quote" in text
    assert "「茅台现在能加仓吗？」" in text


def test_long_question_is_truncated_but_quoted():
    text = respond(conversation(question="为什么" * 200)).text
    assert "为什么为什么" in text and "共 600 字" in text


def test_through_the_sdk(offline, client):
    request = conversation()
    replies = [client.chat.completions.create(model="pixiu-offline", messages=request["messages"]) for _ in range(2)]
    assert replies[0].choices[0].message.content == replies[1].choices[0].message.content
    assert replies[0].choices[0].message.content == respond(request).text
    streamed = "".join(
        chunk.choices[0].delta.content or ""
        for chunk in client.chat.completions.create(model="pixiu-offline", messages=request["messages"], stream=True)
        if chunk.choices
    )
    assert streamed == respond(request).text
    assert "离线" in streamed and "茅台现在能加仓吗？" in streamed
