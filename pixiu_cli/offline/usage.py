"""The ``usage`` object each cache profile reports, shaped like the provider it imitates."""

from __future__ import annotations

from typing import Any


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
