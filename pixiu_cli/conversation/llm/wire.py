"""Reading a chat-completions response body ourselves, byte by byte.

The SDK's stream iterator stops at the first undecodable event and treats any body that is
not an event stream as an empty stream; reading the bytes here lets a call skip a harmless
bad event, accept a plain (non-streamed) JSON completion, name an HTML page for what it is
and stop at a total deadline even while bytes keep trickling in. Imports nothing from openai."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from pixiu_cli.conversation.llm.types import CallOutcome, ToolCall, parse_usage


class BadChunk(ValueError):
    """One event that is not JSON, or JSON of a shape no chat completion has."""

    def __init__(self, cause: str):
        super().__init__(cause)
        self.cause = cause


class ServerReportedError(Exception):
    """An `error` object inside a 200 body (some proxies and providers do this)."""


class SSEDecoder:
    """Incremental server-sent-events framing: feed bytes, get each event's data."""

    def __init__(self) -> None:
        self._pending: list[bytes] = []  # pieces of a line not yet ended (no newline in them)
        self._data: list[str] = []

    def feed(self, data: bytes) -> list[str]:
        events: list[str] = []
        *lines, rest = data.split(b"\n")
        for line in lines:
            # Joining only when a line ends keeps a huge event (split over many reads) linear.
            whole, self._pending = b"".join([*self._pending, line]), []
            self._line(whole.rstrip(b"\r").decode("utf-8", errors="replace"), events)
        if rest:
            self._pending.append(rest)
        return events

    def close(self) -> list[str]:
        events: list[str] = []
        if self._pending:
            whole, self._pending = b"".join(self._pending), []
            self._line(whole.rstrip(b"\r").decode("utf-8", errors="replace"), events)
        self._line("", events)
        return events

    def _line(self, line: str, events: list[str]) -> None:
        if not line:
            if self._data:
                events.append("\n".join(self._data))
                self._data = []
            return
        if line.startswith(":"):  # a comment: keep-alive
            return
        name, _, value = line.partition(":")
        if name == "data":
            self._data.append(value[1:] if value.startswith(" ") else value)


@dataclass
class StreamState:
    """What one attempt has read so far, beyond what `CallOutcome` holds."""

    done: bool = False  # the [DONE] terminator arrived
    partial_calls: dict[int, dict] = field(default_factory=dict)


def _text(value, name: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise BadChunk("TypeError")  # e.g. a number as content, from a broken proxy
    return value


def _reasoning(delta: dict) -> str:
    return _text(delta.get("reasoning_content"), "reasoning_content")


def decode_chunk(data: str) -> dict:
    """Parse one event; raise BadChunk(cause) naming the exception class the user sees."""
    try:
        chunk = json.loads(data)
    except json.JSONDecodeError:
        raise BadChunk("JSONDecodeError") from None
    if not isinstance(chunk, dict):
        raise BadChunk("TypeError")
    if isinstance(chunk.get("error"), dict):
        raise ServerReportedError(str(chunk["error"].get("message") or chunk["error"])[:200])
    choices = chunk.get("choices") or []
    if not isinstance(choices, list) or not all(isinstance(c, dict) for c in choices):
        raise BadChunk("TypeError")
    return chunk


def apply_chunk(chunk: dict, outcome: CallOutcome, state: StreamState) -> list[tuple[str, str]]:
    """Fold one decoded chunk into `outcome`; return the deltas to show, in order."""
    shown: list[tuple[str, str]] = []
    if chunk.get("usage") is not None:
        outcome.usage = parse_usage(chunk["usage"])
    for choice in chunk.get("choices") or []:
        delta = choice.get("delta") or {}
        if not isinstance(delta, dict):
            raise BadChunk("TypeError")
        reasoning, content = _reasoning(delta), _text(delta.get("content"), "content")
        if reasoning:
            outcome.reasoning += reasoning
            shown.append(("reasoning", reasoning))
        if content:
            outcome.text += content
            shown.append(("text", content))
        _fold_tool_calls(delta.get("tool_calls"), outcome, state)
        if choice.get("finish_reason"):
            outcome.finish_reason = _text(choice["finish_reason"], "finish_reason")
    return shown


def _fold_tool_calls(parts, outcome: CallOutcome, state: StreamState) -> None:
    if not parts:
        return
    if not isinstance(parts, list):
        raise BadChunk("TypeError")
    for part in parts:
        if not isinstance(part, dict) or not isinstance(part.get("index", 0), int):
            raise BadChunk("TypeError")
        slot = state.partial_calls.setdefault(part.get("index", 0), {"id": "", "name": "", "arguments": ""})
        slot["id"] = _text(part.get("id"), "id") or slot["id"]
        function = part.get("function") or {}
        if not isinstance(function, dict):
            raise BadChunk("TypeError")
        slot["name"] += _text(function.get("name"), "name")
        slot["arguments"] += _text(function.get("arguments"), "arguments")
    outcome.tool_calls = [
        ToolCall(s["id"] or f"call_{i}", s["name"], s["arguments"]) for i, s in sorted(state.partial_calls.items())
    ]


def read_event(data: str, outcome: CallOutcome, state: StreamState) -> list[tuple[str, str]]:
    """One SSE event. An undecodable event after the finish reason is skipped: nothing of the
    answer can be in it (it is the usage chunk at most, which then stays unknown). Before the
    finish reason it may have carried part of the answer, so BadChunk is raised: the stream
    counts as cut, and there is no point reading on."""
    if data.strip() == "[DONE]":
        state.done = True
        return []
    try:
        return apply_chunk(decode_chunk(data), outcome, state)
    except BadChunk:
        if outcome.finish_reason is None:
            raise
        return []


def read_completion(body: bytes, outcome: CallOutcome) -> list[tuple[str, str]]:
    """A whole non-streamed completion (`"stream": true` ignored by the server)."""
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise BadChunk("JSONDecodeError") from None
    if not isinstance(data, dict):
        raise BadChunk("TypeError")
    if isinstance(data.get("error"), dict):
        raise ServerReportedError(str(data["error"].get("message") or data["error"])[:200])
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise BadChunk("TypeError")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise BadChunk("TypeError")
    # The same folding as a stream with one chunk: the message is that chunk's delta. Its tool
    # calls are whole and carry no `index` (a stream's way of joining a call's pieces): each
    # is its own call, numbered by its place, or all would fold into one.
    calls = message.get("tool_calls")
    if isinstance(calls, list):
        message = dict(
            message, tool_calls=[dict(c, index=i) if isinstance(c, dict) else c for i, c in enumerate(calls)]
        )
    as_chunk = {
        "choices": [{"delta": message, "finish_reason": choices[0].get("finish_reason")}],
        "usage": data.get("usage"),
    }
    return apply_chunk(as_chunk, outcome, StreamState())


def looks_like_html(content_type: str, head: bytes) -> bool:
    start = head.lstrip()[:15].lower()
    return "html" in content_type or start.startswith((b"<!doctype html", b"<html", b"<head", b"<body"))
