"""Offline stand-in for the model's tool use: a statement of a plan, view or rule becomes a
`remember` call, and a reported trade becomes `record_decision`, so the whole loop works
without a key. Heuristic and deterministic; it reads only the request."""

from __future__ import annotations

import json
import re

from pixiu_cli.conversation.offline.script import ToolCallSpec
from pixiu_cli.kernel.dates import find_date_words

_QUESTION = re.compile(
    r"[?？]\s*$|[吗呢么嘛]\s*[。！!]?\s*$|能不能|可不可以|可以吗|怎么|如何|是否|该不该|要不要|多少|哪"
)
_RULE = re.compile(r"以后|再也不|绝不|坚决不|永远不|纪律|原则|不再|必须|一律")
_PLAN = re.compile(r"再加仓|加仓|减仓|止损|止盈|打算|计划|准备|等.{0,12}再|回踩.{0,12}再|到.{0,8}就|分批")
_VIEW = re.compile(r"估值偏高|估值偏低|我觉得|我认为|看好|看空|看多|看淡|高估|低估|判断")
_TRADE_VERB = re.compile(r"(买入|买了|买进|加仓了|补仓了|卖出|卖了|减仓了|清仓了|止损了|止盈了)")
_PRICE = re.compile(r"(?:价格|价位|成交价|以|在|@)?\s*(\d+(?:\.\d+)?)\s*(?:元|块)")
_QUANTITY = re.compile(r"(\d+)\s*(股|手)")
_CODE = re.compile(r"(?<!\d)(\d{6})(?!\d)")
# "002415 海康威视（简称：海康）" wherever a block names a stock: holdings, a stock's own
# section heading, decisions, profiles.
_NAMED_CODE = re.compile(r"(?<![\d.])(\d{6}) ((?:\*?ST)?[\u4e00-\u9fff]{2,8}[A-Z]?)(?:（简称：([^）]+)）)?")
# Asking pixiu to do something with what it knows ("帮我回顾一下…的计划") is a request, not a
# statement to remember; asking it to remember something is.
_REQUEST = re.compile(
    r"^(?:请你?|麻烦|帮我|帮忙|替我|给我|你?能否|回顾|复盘一下|总结|汇总|列出|列一下|看看|看一下|查查|查一下|"
    r"说说|讲讲|告诉我|提醒我)|回顾一下|总结一下|列出|汇总一下"
)
_REMEMBER_ASK = re.compile(r"记住|记下|记一下|备忘")
# "跌破 180 就止损" / "涨破 2000 提醒我": a price the user wants watched becomes an alert rule.
_ALERT = re.compile(
    r"(跌破|跌到|低于|突破|涨破|涨到|高于)\s*(\d+(?:\.\d+)?)\s*(?:元|块)?\s*(?:就|时|的话)?\s*"
    r"(止损|止盈|提醒|预警|卖|清仓|减仓)"
)


def holdings_from_context(context_text: str) -> dict[str, str]:
    """name or short name → code, read from every stock the blocks name (later blocks win)."""
    names: dict[str, str] = {}
    for line in context_text.splitlines():
        for match in _NAMED_CODE.finditer(line):
            code, name, shorts = match.groups()
            names[name] = code
            for short in (shorts or "").split("、"):
                if short.strip():
                    names[short.strip()] = code
    return names


def _symbol(text: str, names: dict[str, str]) -> tuple[str | None, str | None]:
    code = _CODE.search(text)
    if code:
        return code.group(1), None
    for name in sorted(names, key=len, reverse=True):
        if name in text:
            return names[name], name
    return None, None


def planned_tool_calls(question: str, context_text: str, available: set[str]) -> list[ToolCallSpec]:
    text = question.strip()
    if not text or _QUESTION.search(text):
        return []
    if _REQUEST.search(text) and not _REMEMBER_ASK.search(text):
        return []
    names = holdings_from_context(context_text)
    symbol, _ = _symbol(text, names)
    verb = _TRADE_VERB.search(text)
    price, quantity = _PRICE.search(text), _QUANTITY.search(text)
    if "record_decision" in available and verb and price and quantity and symbol:
        side = "sell" if any(w in verb.group(1) for w in ("卖", "减", "清", "止")) else "buy"
        shares = int(quantity.group(1)) * (100 if quantity.group(2) == "手" else 1)
        args = {"symbol": symbol, "side": side, "price": float(price.group(1)), "quantity": shares, "reason": text}
        day = find_date_words(text)
        if day and day not in ("今天", "今日"):
            args["date"] = day  # the user's words (昨天, 3月3日): the tool reads them as a day
        return [ToolCallSpec("record_decision", json.dumps(args, ensure_ascii=False))]
    alert = _ALERT.search(text)
    if "set_alert" in available and alert and symbol:
        kind = "below" if alert.group(1) in ("跌破", "跌到", "低于") else "above"
        args = {"symbol": symbol, "kind": kind, "threshold": float(alert.group(2))}
        return [ToolCallSpec("set_alert", json.dumps(args, ensure_ascii=False))]
    if "remember" not in available:
        return []
    kind = "rule" if _RULE.search(text) else "plan" if _PLAN.search(text) else "view" if _VIEW.search(text) else None
    if kind is None:
        return []
    args = {"kind": kind, "text": text}
    if symbol:
        args["symbol"] = symbol
    return [ToolCallSpec("remember", json.dumps(args, ensure_ascii=False))]
