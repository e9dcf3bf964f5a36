"""What /context shows: the stored request of a call, message by message, labelled and
counted with DeepSeek's tokenizer, and where it first differs from the previous call."""

from __future__ import annotations

import json
from dataclasses import dataclass

from pixiu_cli.conversation.context.block import is_context_message
from pixiu_cli.conversation.tokenizer.counts import count_tokens_by_line, message_text


@dataclass(frozen=True)
class MessageView:
    index: int
    role: str
    label: str  # static | history | history · context block | context block | user | tool | assistant | … · reasoning
    tokens: int
    preview: str


@dataclass(frozen=True)
class RequestView:
    messages: list[MessageView]
    tools_tokens: int
    tool_names: list[str]
    total_tokens: int


@dataclass(frozen=True)
class RequestDiff:
    index: int | None  # first differing message index; None when only non-message fields differ
    what: str  # human-readable, one line
    previous_excerpt: str
    current_excerpt: str


def label_messages(messages: list[dict]) -> list[str]:
    last_user = max(
        (i for i, m in enumerate(messages) if m.get("role") == "user" and not is_context_message(m)), default=-1
    )
    current_block = max((i for i, m in enumerate(messages[:last_user]) if is_context_message(m)), default=-1)
    labels = []
    for i, m in enumerate(messages):
        role = m.get("role")
        if role == "system":
            labels.append("static")
        elif i == current_block:
            labels.append("context block")
        elif i == last_user:
            labels.append("user")
        elif i > last_user:
            labels.append("tool" if role == "tool" else "assistant (this turn)")
        elif is_context_message(m):
            labels.append("history · context block")
        else:
            labels.append("history")
    return labels


def view_request(request: dict) -> RequestView:
    """Each message's tokens, counted by line: exactly count_tokens, from the stored per-line
    counts, so showing a request whose lines were all counted before loads no tokenizer."""
    messages = request.get("messages", [])
    labels = label_messages(messages)
    views = []
    for i, (m, label) in enumerate(zip(messages, labels)):
        text = message_text(m)
        views.append(MessageView(i, m.get("role", "?"), label, count_tokens_by_line(text), " ".join(text.split())[:60]))
        reasoning = m.get("reasoning_content")
        if isinstance(reasoning, str) and reasoning:
            # Its own row: thinking sent back after tool calls costs tokens the answer text does not show.
            preview = " ".join(reasoning.split())[:60]
            views.append(
                MessageView(i, m.get("role", "?"), f"{label} · reasoning", count_tokens_by_line(reasoning), preview)
            )
    tools = request.get("tools") or []
    tools_tokens = count_tokens_by_line(json.dumps(tools, ensure_ascii=False)) if tools else 0
    names = [t.get("function", {}).get("name", "?") for t in tools]
    return RequestView(views, tools_tokens, names, sum(v.tokens for v in views) + tools_tokens)


def _excerpt(text: str, at: int) -> str:
    start = max(0, at - 12)
    snippet = text[start : at + 28].replace("\n", "⏎")
    return ("…" if start else "") + snippet + ("…" if at + 28 < len(text) else "")


def diff_requests(previous: dict, current: dict) -> RequestDiff | None:
    """Where `current` first stops being a continuation of `previous`."""
    for key in ("model", "temperature", "top_p", "max_tokens", "thinking", "reasoning_effort"):
        if previous.get(key) != current.get(key):
            return RequestDiff(None, f"参数 {key} 变化：{previous.get(key)!r} → {current.get(key)!r}", "", "")
    if (previous.get("tools") or []) != (current.get("tools") or []):
        return RequestDiff(None, "工具列表变化", "", "")
    prev_msgs, cur_msgs = previous.get("messages", []), current.get("messages", [])
    labels = label_messages(cur_msgs)
    for i, (a, b) in enumerate(zip(prev_msgs, cur_msgs)):
        if a != b:
            ta, tb = message_text(a), message_text(b)
            if ta == tb:  # the same text: what changed is the reasoning sent with it
                ta, tb = a.get("reasoning_content") or "", b.get("reasoning_content") or ""
            at = next((k for k, (x, y) in enumerate(zip(ta, tb)) if x != y), min(len(ta), len(tb)))
            return RequestDiff(
                i,
                f"第 {i} 条消息（{labels[i]}，{b.get('role')}）第 {at} 个字符起不同",
                _excerpt(ta, at),
                _excerpt(tb, at),
            )
    if len(cur_msgs) < len(prev_msgs):
        return RequestDiff(len(cur_msgs), f"消息被删减：上次 {len(prev_msgs)} 条，本次 {len(cur_msgs)} 条", "", "")
    first_new = len(prev_msgs)
    label = labels[first_new] if first_new < len(labels) else "—"
    return RequestDiff(
        first_new,
        f"前 {first_new} 条消息与上次完全相同；从第 {first_new} 条（{label}）起是新增内容",
        "",
        message_text(cur_msgs[first_new])[:40] if first_new < len(cur_msgs) else "",
    )
