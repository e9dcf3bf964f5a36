"""The deterministic offline responder (what a user without an API key talks to)."""

from __future__ import annotations

from pixiu_cli.conversation.offline import respond

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
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_quote", "arguments": "{}"}}],
        },
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


# -- tool intents read the whole conversation, not only this turn's block -------------------

TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {}}}
    for name in ("remember", "record_decision", "get_holdings")
]
FULL_BLOCK = """[上下文信息]

## 当前时间
- [事实] 2026-11-30 10:00 星期一（北京时间）· 交易中

## 持仓（2 只）
- [事实] 600519 贵州茅台（简称：茅台） · 核心仓 · 200 股 · 成本 1580.00
- [事实] 002415 海康威视（简称：海康） · 卫星仓 · 3,000 股 · 成本 33.80

[/上下文信息]"""
# What a later turn carries under the delta layout: only what changed, no holdings.
DELTA_BLOCK = """[上下文信息]

## 当前时间
- [事实] 2026-11-30 10:05 星期一（北京时间）· 交易中

[/上下文信息]"""


def continued(question: str, first_block: str = FULL_BLOCK) -> dict:
    messages = [
        {"role": "system", "content": "你是 pixiu。"},
        {"role": "user", "content": first_block},
        {"role": "user", "content": "我的持仓怎么样？"},
        {"role": "assistant", "content": "整体均衡。"},
        {"role": "user", "content": DELTA_BLOCK},
        {"role": "user", "content": question},
    ]
    return {"model": "pixiu-offline", "messages": messages, "tools": TOOLS}


def planned(request: dict) -> list[tuple[str, dict]]:
    import json

    return [(call.name, json.loads(call.arguments)) for call in respond(request).tool_calls]


def test_a_trade_reported_by_name_in_a_continued_conversation_is_recorded():
    calls = planned(continued("今天以 30 元买入海康威视 200 股"))
    assert calls == [
        (
            "record_decision",
            {
                "symbol": "002415",
                "side": "buy",
                "price": 30.0,
                "quantity": 200,
                "reason": "今天以 30 元买入海康威视 200 股",
            },
        )
    ]


def test_remember_keeps_the_symbol_of_a_stock_named_by_its_short_name():
    assert planned(continued("海康估值偏高，回踩 30 元再加仓")) == [
        ("remember", {"kind": "plan", "text": "海康估值偏高，回踩 30 元再加仓", "symbol": "002415"})
    ]


def test_a_stock_named_only_in_an_earlier_section_heading_is_found():
    heading_only = "[上下文信息]\n\n## 标的上下文：300750 宁德时代\n- [事实] 画像略\n\n[/上下文信息]"
    calls = planned(continued("今天以 366 元卖出宁德时代 100 股", first_block=heading_only))
    assert calls and calls[0][0] == "record_decision" and calls[0][1]["symbol"] == "300750"
    assert calls[0][1]["side"] == "sell"


def test_asking_to_review_plans_is_not_a_plan():
    for request in ("帮我回顾一下今天说过的计划", "请总结一下我的止损计划", "列出我准备加仓的股票"):
        assert planned(continued(request)) == [], request
    # …but asking pixiu to remember one still is.
    assert planned(continued("帮我记住：茅台跌破1500元加仓")) == [
        ("remember", {"kind": "plan", "text": "帮我记住：茅台跌破1500元加仓", "symbol": "600519"})
    ]
