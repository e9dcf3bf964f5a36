"""DeepSeek-like serialisation of a chat request, used to count tokens and to key the
prefix cache.

It follows the shape of DeepSeek's chat template:

* every ``system`` message is hoisted to the front and joined with ``"\\n\\n"`` (so a
  second system message anywhere in the list changes the prefix);
* the tools, if any, come right after the system prompt, as the exact JSON text of the
  tools list in order;
* then every other message in order, with DeepSeek's special role tokens.

The assistant turn a request generates (``render_completion``) is rendered exactly as
the same assistant message renders inside a later request, so a follow-up request that
carries the reply back hits the cache on it. Every marker is a single special token in
DeepSeek's tokenizer, so tokenisation never merges across a marker.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

BOS = "<｜begin▁of▁sentence｜>"
EOS = "<｜end▁of▁sentence｜>"
USER = "<｜User｜>"
ASSISTANT = "<｜Assistant｜>"
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
CALLS_BEGIN = "<｜tool▁calls▁begin｜>"
CALLS_END = "<｜tool▁calls▁end｜>"
CALL_BEGIN = "<｜tool▁call▁begin｜>"
CALL_END = "<｜tool▁call▁end｜>"
TOOL_SEP = "<｜tool▁sep｜>"
OUTPUTS_BEGIN = "<｜tool▁outputs▁begin｜>"
OUTPUTS_END = "<｜tool▁outputs▁end｜>"
OUTPUT_BEGIN = "<｜tool▁output▁begin｜>"
OUTPUT_END = "<｜tool▁output▁end｜>"

# Every marker above: each is one special token, which the tokenizer splits at first.
MARKERS = (
    BOS,
    EOS,
    USER,
    ASSISTANT,
    THINK_OPEN,
    THINK_CLOSE,
    CALLS_BEGIN,
    CALLS_END,
    CALL_BEGIN,
    CALL_END,
    TOOL_SEP,
    OUTPUTS_BEGIN,
    OUTPUTS_END,
    OUTPUT_BEGIN,
    OUTPUT_END,
)

TOOLS_HEADER = "\n\n## Tools\nYou can call these functions (JSON schema list):\n"

# Roles that DeepSeek's template folds into the system prompt.
SYSTEM_ROLES = frozenset({"system", "developer"})


def content_text(content: Any) -> str:
    """The text of a message ``content``: a string, ``None``, or a list of parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        pieces = []
        for part in content:
            if isinstance(part, Mapping):
                if part.get("type", "text") == "text" and isinstance(part.get("text"), str):
                    pieces.append(part["text"])
            elif isinstance(part, str):
                pieces.append(part)
        return "".join(pieces)
    return str(content)


def tools_json(tools: list[Any]) -> str:
    return json.dumps(tools, ensure_ascii=False, separators=(",", ":"))


def _call_fields(call: Any) -> tuple[str, str]:
    """(name, arguments) of a tool call given as an OpenAI dict or a ToolCallSpec."""
    if isinstance(call, Mapping):
        function = call.get("function") or {}
        name = function.get("name", call.get("name", ""))
        arguments = function.get("arguments", call.get("arguments", ""))
    else:
        name = getattr(call, "name", "")
        arguments = getattr(call, "arguments", "")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return str(name or ""), arguments


def render_tool_calls(tool_calls: Iterable[Any]) -> str:
    calls = list(tool_calls or [])
    if not calls:
        return ""
    parts = [CALLS_BEGIN]
    for call in calls:
        name, arguments = _call_fields(call)
        parts.append(f"{CALL_BEGIN}function{TOOL_SEP}{name}\n```json\n{arguments}\n```{CALL_END}")
    parts.append(CALLS_END)
    return "".join(parts)


def _assistant_body(text: str, reasoning: str, tool_calls: Iterable[Any]) -> str:
    think = f"{THINK_OPEN}{reasoning}{THINK_CLOSE}" if reasoning else ""
    return f"{think}{text}{render_tool_calls(tool_calls)}{EOS}"


def render_completion(text: str, reasoning: str = "", tool_calls: Iterable[Any] = ()) -> str:
    """The generated assistant turn, as it follows the prompt's trailing ``<｜Assistant｜>``."""
    return _assistant_body(text or "", reasoning or "", tool_calls)


def render_prompt(request: Mapping[str, Any]) -> str:
    """The prompt text DeepSeek's template would build for ``request`` (ends with the
    generation marker ``<｜Assistant｜>``)."""
    messages = [m for m in request.get("messages") or [] if isinstance(m, Mapping)]
    system = "\n\n".join(content_text(m.get("content")) for m in messages if m.get("role") in SYSTEM_ROLES)
    out = [BOS, system]
    tools = request.get("tools")
    if tools:
        out.append(TOOLS_HEADER + tools_json(tools) + "\n")

    in_tool_outputs = False
    for message in messages:
        role = message.get("role")
        if role in SYSTEM_ROLES:
            continue
        if role == "tool":
            if not in_tool_outputs:
                out.append(OUTPUTS_BEGIN)
                in_tool_outputs = True
            call_id = message.get("tool_call_id") or ""
            out.append(f"{OUTPUT_BEGIN}[tool_call_id: {call_id}]\n{content_text(message.get('content'))}{OUTPUT_END}")
            continue
        if in_tool_outputs:
            out.append(OUTPUTS_END)
            in_tool_outputs = False
        if role == "assistant":
            out.append(
                ASSISTANT
                + _assistant_body(
                    content_text(message.get("content")),
                    content_text(message.get("reasoning_content")),
                    message.get("tool_calls") or (),
                )
            )
        else:  # "user" and anything unknown are rendered as user turns
            out.append(USER + content_text(message.get("content")))
    if in_tool_outputs:
        out.append(OUTPUTS_END)
    out.append(ASSISTANT)
    return "".join(out)
