"""OpenAI-format response bodies: the non-streaming ``chat.completion`` object and the
sequence of streaming ``chat.completion.chunk`` objects for one reply."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from .script import ScriptedReply

SYSTEM_FINGERPRINT = "fp_pixiu_offline"


@dataclass(frozen=True)
class ReplyMeta:
    completion_id: str
    created: int
    model: str


def tool_call_ids(reply: ScriptedReply, seed: str) -> list[str]:
    """The scripted id of each call, or a deterministic one derived from ``seed``
    (the rendered prompt), so the same request always yields the same ids."""
    digest = hashlib.sha256(seed.encode("utf-8")).hexdigest()[:16]
    return [call.id or f"call_{digest}_{i}" for i, call in enumerate(reply.tool_calls)]


def finish_reason(reply: ScriptedReply) -> str:
    return "tool_calls" if reply.tool_calls else "stop"


def split(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def completion_body(
    meta: ReplyMeta, reply: ScriptedReply, call_ids: list[str], usage: dict[str, Any]
) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "assistant",
        "content": reply.text if (reply.text or not reply.tool_calls) else None,
    }
    if reply.reasoning:
        message["reasoning_content"] = reply.reasoning
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": call_id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}
            for call, call_id in zip(reply.tool_calls, call_ids)
        ]
    return {
        "id": meta.completion_id,
        "object": "chat.completion",
        "created": meta.created,
        "model": meta.model,
        "system_fingerprint": SYSTEM_FINGERPRINT,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason(reply)}],
        "usage": usage,
    }


def _chunk(meta: ReplyMeta, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": meta.completion_id,
        "object": "chat.completion.chunk",
        "created": meta.created,
        "model": meta.model,
        "system_fingerprint": SYSTEM_FINGERPRINT,
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }


def stream_chunks(
    meta: ReplyMeta, reply: ScriptedReply, call_ids: list[str], usage: dict[str, Any] | None
) -> list[dict[str, Any]]:
    """Every data chunk of a streamed reply, in order (without ``[DONE]``).

    ``usage`` is sent as a last chunk with ``choices: []`` when given (the client asked
    for ``stream_options.include_usage``)."""
    size = reply.chunk_chars
    chunks = [_chunk(meta, {"role": "assistant", "content": ""})]
    for piece in split(reply.reasoning, size):
        chunks.append(_chunk(meta, {"content": None, "reasoning_content": piece}))
    for piece in split(reply.text, size):
        chunks.append(_chunk(meta, {"content": piece}))
    for index, (call, call_id) in enumerate(zip(reply.tool_calls, call_ids)):
        chunks.append(
            _chunk(
                meta,
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call_id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": ""},
                        }
                    ]
                },
            )
        )
        for piece in split(call.arguments, size):
            chunks.append(_chunk(meta, {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    chunks.append(_chunk(meta, {}, finish_reason(reply)))
    if usage is not None:
        final = _chunk(meta, {})
        final["choices"] = []
        final["usage"] = usage
        chunks.append(final)
    return chunks
