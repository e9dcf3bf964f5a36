"""The conversations' plain types other areas hold: a call's token counts as the cost report
adds them up."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class UsageRow:
    started_at: str
    prompt_tokens: int | None
    completion_tokens: int | None
    cache_hit_tokens: int | None
    cache_miss_tokens: int | None
    model: str | None = None
