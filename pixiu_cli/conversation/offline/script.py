"""What the offline server answers: scripted replies and injected faults.

Both are plain dataclasses so tests can build them in-process, and both round-trip
through JSON (``to_dict`` / ``from_dict``) so another process can post them to the
server's control endpoints.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

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
