"""Reading cache usage from any OpenAI-compatible provider. Unknown stays unknown (None)."""

from __future__ import annotations

from pixiu_cli.conversation.llm.types import Usage


def _get(obj, name):
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    value = getattr(obj, name, None)
    if value is None:
        extra = getattr(obj, "model_extra", None) or {}
        value = extra.get(name)
    return value


def parse_usage(raw) -> Usage:
    if raw is None:
        return Usage()
    prompt = _get(raw, "prompt_tokens")
    completion = _get(raw, "completion_tokens")
    hit = _get(raw, "prompt_cache_hit_tokens")
    if hit is None:
        hit = _get(_get(raw, "prompt_tokens_details"), "cached_tokens")
    miss = _get(raw, "prompt_cache_miss_tokens")
    if miss is None and hit is not None and prompt is not None:
        miss = prompt - hit
    return Usage(prompt, completion, hit, miss)
