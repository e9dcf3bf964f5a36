"""DeepSeek's thinking mode, as the offline server imitates it.

A request asks for thinking with ``{"thinking": {"type": "enabled"}}``. Then the reply
carries ``reasoning_content`` and DeepSeek's rule for tool-using turns holds: between two
user messages, if the model made tool calls, every assistant message there must come back
with its ``reasoning_content`` in all later requests, or the request is refused (400).
The server thinks only when asked, so requests that do not mention thinking behave as
they always did."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pixiu_cli.conversation.llm.model_names import RETIRED_MODELS
from pixiu_cli.conversation.llm.template import content_text

from .script import ScriptedReply

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
