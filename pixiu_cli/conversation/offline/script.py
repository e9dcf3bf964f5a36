"""What the offline server answers: scripted replies and injected faults.

Both are plain dataclasses so tests can build them in-process, and both round-trip
through JSON (``to_dict`` / ``from_dict``) so another process can post them to the
server's control endpoints.

Offline stand-in for the model's tool use: a statement of a plan, view or rule becomes a
`remember` call, and a reported trade becomes `record_decision`, so the whole loop works
without a key. Heuristic and deterministic; it reads only the request.

The offline reading model's daily brief: it restates the facts pixiu computed (the
request's fact section) as a short brief with a 结论 line, and says what it is. It reads
only the request, so its brief is as right as the facts it was given, and no more."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from pixiu_cli.kernel.clock import find_date_words
from pixiu_cli.kernel.vocabulary import BRIEF_FACTS, CONCLUSION_MARK

FAULT_KINDS = frozenset({"http_error", "delay", "keepalive", "drop_stream", "malformed_chunk", "timeout"})

# Faults that end the request before any reply is produced: when such a fault comes
# from the fault queue, the scripted reply queue is left untouched, so a client retry
# receives the next scripted reply.
REJECTING_FAULT_KINDS = frozenset({"http_error", "timeout"})


@dataclass
class Fault:
    """One injected failure, applied to exactly one request.

    kind:
      ``http_error``      answer ``status`` (402/429/500/503/...) with an OpenAI-style
                          error body; 429 also sends ``Retry-After`` when ``retry_after``
                          is given.
      ``delay``           sleep ``seconds`` before answering, then answer normally.
      ``keepalive``       streaming: ``keepalive_lines`` SSE comment lines
                          (``: keep-alive``) before the first data chunk; non-streaming:
                          that many leading blank lines before the JSON body. ``seconds``
                          is spread evenly between the lines.
      ``drop_stream``     send ``after_chunks`` data chunks, then close the socket
                          abruptly (no terminating chunk, no ``[DONE]``).
      ``malformed_chunk`` send ``after_chunks`` good chunks, then ``data: {not json``
                          and end the response.
      ``timeout``         sleep ``seconds`` (30 s when 0) sending nothing, then close the
                          connection without a response.
    """

    kind: str
    status: int | None = None
    retry_after: float | None = None
    seconds: float = 0.0
    after_chunks: int = 1
    keepalive_lines: int = 0

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}; expected one of {sorted(FAULT_KINDS)}")
        if self.kind == "http_error":
            if self.status is None:
                raise ValueError("an http_error fault needs a status")
            if not 400 <= int(self.status) <= 599:
                raise ValueError(f"http_error status must be 4xx or 5xx, got {self.status}")
            self.status = int(self.status)
        if self.seconds < 0 or self.after_chunks < 0 or self.keepalive_lines < 0:
            raise ValueError("fault seconds, after_chunks and keepalive_lines must not be negative")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Fault:
        if not isinstance(data, dict):
            raise ValueError("a fault must be a JSON object")
        known = {"kind", "status", "retry_after", "seconds", "after_chunks", "keepalive_lines"}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown fault fields: {sorted(unknown)}")
        if "kind" not in data:
            raise ValueError("a fault needs a kind")
        return cls(**data)


@dataclass
class ToolCallSpec:
    """A tool call the model makes. ``arguments`` is the raw string sent over the wire
    (it may deliberately be invalid JSON). ``id`` is generated when omitted."""

    name: str
    arguments: str
    id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolCallSpec:
        if not isinstance(data, dict) or "name" not in data:
            raise ValueError("a tool call needs a name")
        arguments = data.get("arguments", "")
        if not isinstance(arguments, str):
            # Convenience for hand-written scripts: a JSON object becomes its text.
            arguments = json.dumps(arguments, ensure_ascii=False)
        return cls(name=str(data["name"]), arguments=arguments, id=data.get("id"))


@dataclass
class ScriptedReply:
    """One model reply. Streaming splits ``reasoning``, ``text`` and each tool call's
    arguments into ``chunk_chars``-character pieces, ``chunk_delay`` seconds apart."""

    text: str = ""
    tool_calls: list[ToolCallSpec] = field(default_factory=list)
    reasoning: str = ""
    chunk_delay: float = 0.0
    chunk_chars: int = 4
    fault: Fault | None = None

    def __post_init__(self) -> None:
        if self.chunk_chars < 1:
            raise ValueError("chunk_chars must be at least 1")
        if self.chunk_delay < 0:
            raise ValueError("chunk_delay must not be negative")

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "tool_calls": [call.to_dict() for call in self.tool_calls],
            "reasoning": self.reasoning,
            "chunk_delay": self.chunk_delay,
            "chunk_chars": self.chunk_chars,
            "fault": self.fault.to_dict() if self.fault else None,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any] | str) -> ScriptedReply:
        if isinstance(data, str):
            return cls(text=data)
        if not isinstance(data, dict):
            raise ValueError("a scripted reply must be a JSON object or a string")
        known = {"text", "tool_calls", "reasoning", "chunk_delay", "chunk_chars", "fault"}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown reply fields: {sorted(unknown)}")
        fault = data.get("fault")
        return cls(
            text=str(data.get("text", "")),
            tool_calls=[ToolCallSpec.from_dict(c) for c in data.get("tool_calls") or []],
            reasoning=str(data.get("reasoning", "")),
            chunk_delay=float(data.get("chunk_delay", 0.0)),
            chunk_chars=int(data.get("chunk_chars", 4)),
            fault=Fault.from_dict(fault) if fault else None,
        )


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


NOTICE = "（离线评测模型：只复述本次请求中 pixiu 算出的事实，不做判断，不是真实模型）"
NO_FACTS = "本次请求中没有 pixiu 算出的简报事实，我不做猜测。"


def _sections(text: str) -> dict[str, list[str]]:
    """Heading (a line ending in ：) → its "- " items; other lines go under 头部."""
    if BRIEF_FACTS not in text:
        return {}
    sections: dict[str, list[str]] = {"头部": []}
    current = "头部"
    for raw in text.split(BRIEF_FACTS, 1)[1].splitlines():
        line = raw.strip()
        if line.startswith("- "):
            if line != "- 无":
                sections[current].append(line[2:])
        elif line.endswith("："):
            current = line
            sections[current] = []
        elif line:
            sections["头部"].append(line)
    return sections


def _find(sections: dict[str, list[str]], prefix: str) -> list[str]:
    return next((items for title, items in sections.items() if title.startswith(prefix)), [])


def write(question: str) -> ScriptedReply:
    sections = _sections(question)
    if not sections:
        return ScriptedReply(text=f"{NOTICE}\n{NO_FACTS}")
    portfolio = next((line for line in sections["头部"] if line.startswith("组合：")), "")
    # "截至 D 收盘（…）", or "截至：没有已存的行情…" when no holding has bars
    as_of = next((line for line in sections["头部"] if line.startswith("截至")), "")
    risks = [r for r in _find(sections, "纪律与计划风险") if r != "没有触发"]
    counts = {name: len(_find(sections, name)) for name in ("预警", "信号方向变化", "新闻与公告", "交易")}
    lines = [NOTICE, as_of, portfolio]
    lines += [f"需要留意：{r}" for r in risks] or ["没有触发你写下的仓位上限、止损位或计划价。"]
    lines.append("；".join(f"{name} {n} 条" for name, n in counts.items()) + "（详见上面的事实）。")
    head = as_of.removeprefix("截至：").split("（", 1)[0]
    summary = portfolio.removeprefix("组合：").split("；", 1)[0]
    verdict = f"{len(risks)} 条纪律或计划需要留意（{risks[0].split('（', 1)[0]}）" if risks else "没有触发的纪律或计划"
    said = "，".join(clause for clause in (head, summary) if clause)
    lines.append(f"{CONCLUSION_MARK}{said}；{verdict}。" if said else f"{CONCLUSION_MARK}{verdict}。")
    return ScriptedReply(text="\n".join(line for line in lines if line))
