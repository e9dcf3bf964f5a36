"""OpenAI-format response bodies: the non-streaming ``chat.completion`` object and the
sequence of streaming ``chat.completion.chunk`` objects for one reply.

The ``usage`` object each cache profile reports, shaped like the provider it imitates."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from pixiu_cli.conversation.llm import template
from pixiu_cli.conversation.llm.template import render_completion
from pixiu_cli.conversation.offline.script import ScriptedReply
from pixiu_cli.conversation.tokenizer.counts import EXACT_COUNT_CHARS, count_tokens, encode, estimated_tokens

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


if TYPE_CHECKING:
    from pixiu_cli.conversation.offline.cache import PrefixCache
    from pixiu_cli.conversation.offline.script import ScriptedReply


def build_usage(
    profile: str, prompt_tokens: int, completion_tokens: int, cached_tokens: int, reasoning_tokens: int = 0
) -> dict[str, Any]:
    usage: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }
    if profile == "deepseek":
        usage["prompt_cache_hit_tokens"] = cached_tokens
        usage["prompt_cache_miss_tokens"] = prompt_tokens - cached_tokens
        usage["prompt_tokens_details"] = {"cached_tokens": cached_tokens}
        if reasoning_tokens:
            usage["completion_tokens_details"] = {"reasoning_tokens": reasoning_tokens}
    elif profile == "openai":
        usage["prompt_tokens_details"] = {"cached_tokens": cached_tokens}
        if reasoning_tokens:
            usage["completion_tokens_details"] = {"reasoning_tokens": reasoning_tokens}
    return usage


# The template's markers, each one special token of DeepSeek's tokenizer. The tokenizer
# matches special tokens before anything else and tokenises the text between two of them on
# its own (none strips the whitespace beside it), so a prompt's tokens are its pieces'
# tokens in order. A conversation's prompts share most pieces (the system prompt with the
# tools, every earlier message), and the tokenizer is pure Python: each piece is encoded once.
_MARKERS = sorted(
    (
        template.BOS,
        template.EOS,
        template.USER,
        template.ASSISTANT,
        template.CALLS_BEGIN,
        template.CALLS_END,
        template.CALL_BEGIN,
        template.CALL_END,
        template.TOOL_SEP,
        template.OUTPUTS_BEGIN,
        template.OUTPUTS_END,
        template.OUTPUT_BEGIN,
        template.OUTPUT_END,
    ),
    key=len,
    reverse=True,
)
_AT_MARKERS = re.compile("(" + "|".join(map(re.escape, _MARKERS)) + ")")


@lru_cache(maxsize=8192)
def _piece_tokens(piece: str) -> tuple[int, ...]:
    return tuple(encode(piece))


def prompt_tokens(text: str) -> list[int]:
    """`encode(text)`, piece by piece between the template's markers, each piece remembered
    (up to a piece too long to encode: see counted_prompt)."""
    return counted_prompt(text)[0]


def counted_prompt(text: str) -> tuple[list[int], int]:
    """The prompt's tokens and how many it has. A piece too long to encode (a pasted file of
    megabytes) is counted by estimate and ends the tokens, so the cache holds nothing past it."""
    tokens: list[int] = []
    count, cut = 0, False
    for piece in _AT_MARKERS.split(text):
        if not piece:
            continue
        if len(piece) > EXACT_COUNT_CHARS:
            cut = True
            count += estimated_tokens(piece)
            continue
        ids = _piece_tokens(piece)
        count += len(ids)
        if not cut:
            tokens.extend(ids)
    return tokens, count


def account_call(
    cache: PrefixCache, api_key: str, prompt: str, reply: ScriptedReply, truncated: bool
) -> dict[str, Any]:
    """Usage for one call, with the prefix cache consulted and updated (a cut-off answer
    caches only the prompt). The HTTP server and the in-process model both count here."""
    input_tokens, input_count = counted_prompt(prompt)
    completion = render_completion(reply.text, reply.reasoning, reply.tool_calls)
    # a reply of megabytes is counted by estimate (as the client counts it) and not cached
    huge = len(completion) > EXACT_COUNT_CHARS
    output_tokens = [] if huge else prompt_tokens(completion)
    cached = cache.lookup(api_key, input_tokens)
    whole = not (truncated or huge or len(input_tokens) < input_count)
    cache.store(api_key, input_tokens + output_tokens if whole else input_tokens)
    return build_usage(
        cache.profile,
        input_count,
        estimated_tokens(completion) if huge else len(output_tokens),
        cached,
        reasoning_tokens=count_tokens(reply.reasoning) if reply.reasoning else 0,
    )
