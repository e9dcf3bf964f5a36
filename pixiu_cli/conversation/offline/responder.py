"""The deterministic offline responder: what a user without an API key chats with.

It answers only from what the request contains, always says it is offline, echoes the
real question (the last user message) and summarises the context it can see. The same
request always gets the same reply.

DeepSeek's thinking mode, as the offline server imitates it.

A request asks for thinking with ``{"thinking": {"type": "enabled"}}``. Then the reply
carries ``reasoning_content`` and DeepSeek's rule for tool-using turns holds: between two
user messages, if the model made tool calls, every assistant message there must come back
with its ``reasoning_content`` in all later requests, or the request is refused (400).
The server thinks only when asked, so requests that do not mention thinking behave as
they always did."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pixiu_cli.conversation.llm.model import RETIRED_MODELS
from pixiu_cli.conversation.llm.template import SYSTEM_ROLES, content_text
from pixiu_cli.conversation.offline import script as brief_writer
from pixiu_cli.conversation.offline.grounded import is_context_block
from pixiu_cli.conversation.offline.script import ScriptedReply, planned_tool_calls
from pixiu_cli.kernel.vocabulary import BRIEF_OPEN

OFFLINE_NOTICE = "（离线模式：未配置 API key，以下回答由本地离线应答器根据本次请求内容生成，不是真实模型）"
# `pixiu offline-server` answers clients that do send a key: no claim about keys there.
SERVER_NOTICE = "（pixiu 离线服务：以下回答由本地离线应答器根据本次请求内容生成，不是真实模型）"
# --offline with a key set: offline because the user asked for it, not for want of a key.
CHOSEN_NOTICE = (
    "（离线模式：按 --offline 的要求没有调用模型，以下回答由本地离线应答器根据本次请求内容生成，不是真实模型）"
)
NO_ADVICE = "离线应答器不会分析行情，也不会给出投资建议。"
KEY_HINT = "设置 DEEPSEEK_API_KEY（或 PIXIU_API_KEY）后即可与真实模型对话。"
QUESTION_LIMIT = 300

_HEADING = re.compile(r"^\s*(?:#{1,6}\s+(?P<md>.+?)|【(?P<cn>[^】]+)】.*?)\s*$")
_ITEM = re.compile(r"^\s*(?:[-*•·]|\d+[.、)）])\s*\S")


@dataclass
class ContextSummary:
    sections: list[tuple[str, int]] = field(default_factory=list)
    loose_items: int = 0

    @property
    def items(self) -> int:
        return self.loose_items + sum(count for _, count in self.sections)


def summarise_context(text: str) -> ContextSummary:
    """Section headings (``## …`` or ``【…】``) of a context block and items under each."""
    summary = ContextSummary()
    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading:
            name = (heading.group("md") or heading.group("cn") or "").strip()
            summary.sections.append((name, 0))
        elif _ITEM.match(line):
            if summary.sections:
                name, count = summary.sections[-1]
                summary.sections[-1] = (name, count + 1)
            else:
                summary.loose_items += 1
    return summary


def _quote(text: str) -> str:
    text = text.strip()
    if len(text) > QUESTION_LIMIT:
        return f"{text[:QUESTION_LIMIT]}…（共 {len(text)} 字）"
    return text


@dataclass
class _Turn:
    history: list[Mapping[str, Any]]
    current: list[Mapping[str, Any]]  # this turn's user messages: blocks, then the question
    tool_results: list[Mapping[str, Any]]

    @property
    def question(self) -> str:
        last = self.current[-1] if self.current else None
        return "" if last is None or is_context_block(last) else content_text(last.get("content"))


def _split_turn(conversation: list[Mapping[str, Any]]) -> _Turn:
    # The trailing run of user messages is this turn; before it is the history.
    start = len(conversation)
    while start > 0 and conversation[start - 1].get("role") == "user":
        start -= 1
    history, current = conversation[:start], conversation[start:]
    if current:
        return _Turn(history, current, [])
    # In a tool loop the turn ends with tool results; the question is still the last
    # user message.
    last_user = max((i for i, m in enumerate(history) if m.get("role") == "user"), default=-1)
    if last_user < 0:
        return _Turn(history, [], [])
    start = last_user
    while start > 0 and history[start - 1].get("role") == "user":
        start -= 1
    tool_results = [m for m in history[last_user + 1 :] if m.get("role") == "tool"]
    return _Turn(history[:start], history[start : last_user + 1], tool_results)


def _tool_names(request: Mapping[str, Any]) -> list[str]:
    return [
        str((t.get("function") or {}).get("name", "")) for t in request.get("tools") or [] if isinstance(t, Mapping)
    ]


def respond(request: Mapping[str, Any], *, keyless: bool = False, chosen: bool = False) -> ScriptedReply:
    """``keyless``: pixiu's own offline mode (no API key set), whose replies say so and
    say how to use a real model; ``chosen``: offline mode asked for with a key set."""
    messages = [m for m in request.get("messages") or [] if isinstance(m, Mapping)]
    conversation = [m for m in messages if m.get("role") not in SYSTEM_ROLES]
    turn = _split_turn(conversation)
    question = turn.question
    if question.startswith(BRIEF_OPEN):  # the daily brief: the reading model writes it from the facts
        return brief_writer.write(question)

    if not turn.tool_results and question.strip():
        # Stocks named in any block of the conversation, not only this turn's: a delta
        # block carries only what changed since the earlier ones.
        context_text = "\n".join(content_text(m.get("content")) for m in conversation if is_context_block(m))
        planned = planned_tool_calls(question, context_text, set(_tool_names(request)))
        if planned:
            return ScriptedReply(tool_calls=planned)

    lines = [CHOSEN_NOTICE if chosen else OFFLINE_NOTICE if keyless else SERVER_NOTICE, ""]
    if question.strip():
        lines.append(f"你的问题是：「{_quote(question)}」")
    else:
        lines.append("本次请求中没有找到你的问题（最后一条用户消息为空或只是 [上下文信息]）。")
    lines += ["", "本次请求中我能看到："]
    lines += _request_lines(request, messages, turn)
    lines += _tool_result_lines(messages, turn.tool_results)
    lines += ["", NO_ADVICE + (KEY_HINT if keyless and not chosen else "")]
    return ScriptedReply(text="\n".join(lines))


def _request_lines(request: Mapping[str, Any], messages: list[Mapping[str, Any]], turn: _Turn) -> list[str]:
    lines = []
    system = [content_text(m.get("content")) for m in messages if m.get("role") in SYSTEM_ROLES]
    system_chars = len("\n\n".join(system))
    lines.append(f"- 系统提示：{len(system)} 条，共 {system_chars} 字" if system else "- 系统提示：无")

    names = _tool_names(request)
    lines.append(f"- 可用工具：{len(names)} 个（{'、'.join(n for n in names if n)}）" if names else "- 可用工具：无")

    earlier_turns = sum(1 for m in turn.history if m.get("role") == "user" and not is_context_block(m))
    old_blocks = sum(1 for m in turn.history if is_context_block(m))
    history_line = f"- 历史对话：{earlier_turns} 轮"
    if old_blocks:
        history_line += f"（其中保留了 {old_blocks} 个旧的 [上下文信息] 块）"
    lines.append(history_line)

    blocks = [m for m in turn.current if is_context_block(m)]
    if not blocks:
        lines.append("- [上下文信息]：本轮没有附带")
    for block in blocks:
        summary = summarise_context(content_text(block.get("content")))
        lines.append(f"- [上下文信息]：{len(summary.sections)} 个部分，共 {summary.items} 条")
        lines += [f"  - {name}：{count} 条" for name, count in summary.sections]
    return lines


def _tool_result_lines(messages: list[Mapping[str, Any]], tool_results: list[Mapping[str, Any]]) -> list[str]:
    if not tool_results:
        return []
    call_names = {}
    for message in messages:
        for call in message.get("tool_calls") or []:
            if isinstance(call, Mapping):
                call_names[call.get("id")] = (call.get("function") or {}).get("name", "")
    described = "、".join(
        f"{call_names.get(m.get('tool_call_id')) or m.get('tool_call_id') or '未知工具'}"
        f"（{len(content_text(m.get('content')))} 字）"
        for m in tool_results
    )
    return [
        f"- 工具结果：{len(tool_results)} 条（{described}）",
        *(f"  - {_quote(content_text(m.get('content')))}" for m in tool_results),
    ]


REASONING_MISSING = "The reasoning_content in the thinking mode must be passed back to the API."
RETIRED = tuple(RETIRED_MODELS)  # DeepSeek answers these with "Model Not Exist"


def refusal_of(request: Mapping[str, Any], model: str | None) -> str | None:
    """DeepSeek's own refusals of a well-formed request: a retired model name, and reasoning
    missing from a tool-using turn in thinking mode."""
    if model in RETIRED:
        return "Model Not Exist"
    if thinking_requested(request) and missing_reasoning(request["messages"]):
        return REASONING_MISSING
    return None


def thinking_requested(request: Mapping[str, Any]) -> bool:
    thinking = request.get("thinking")
    return isinstance(thinking, Mapping) and thinking.get("type") == "enabled"


def missing_reasoning(messages: list[Any]) -> bool:
    """Whether a user-to-user span with tool calls has an assistant message without its reasoning."""
    span: list[Mapping[str, Any]] = []
    for message in [*messages, {"role": "user"}]:
        if not isinstance(message, Mapping):
            continue
        if message.get("role") == "user":
            if any(m.get("tool_calls") for m in span) and any(not m.get("reasoning_content") for m in span):
                return True
            span = []
        elif message.get("role") == "assistant":
            span.append(message)
    return False


def thought(reply: ScriptedReply, request: Mapping[str, Any]) -> ScriptedReply:
    """The responder's reply with reasoning of its own, when the request asked for thinking.
    The reasoning depends only on the request, so the same request thinks the same."""
    if reply.reasoning or not thinking_requested(request):
        return reply
    users = [m for m in request.get("messages") or [] if isinstance(m, Mapping) and m.get("role") == "user"]
    question = " ".join(content_text(users[-1].get("content")).split())[:40] if users else ""
    if reply.tool_calls:
        names = "、".join(call.name for call in reply.tool_calls)
        reasoning = f"（离线思考）问题「{question}」需要先调用工具：{names}。"
    else:
        reasoning = f"（离线思考）先读 [上下文信息]，再回答「{question}」。"
    return replace(reply, reasoning=reasoning)
