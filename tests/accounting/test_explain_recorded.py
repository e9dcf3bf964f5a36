"""The cache explainer against a recorded DeepSeek-shaped usage sequence
(tests/fixtures/cache/), not against the offline server's simulator, which shares its code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pixiu_cli.account.explain import UNIT, explain
from pixiu_cli.conversation.store import CallRecord, CallUsage

RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "cache" / "deepseek_usage.json"
EXPECTED = [  # cause, flagged
    ("first_call", False),
    ("append_only", False),
    ("append_only", True),  # evicted on the provider's side: the explainer must say so
    ("model_or_params", False),
    ("new_conversation", False),
]


def records() -> list[CallRecord]:
    calls = json.loads(RECORDED.read_text(encoding="utf-8"))["calls"]
    out = []
    for n, call in enumerate(calls, start=1):
        u = call["usage"]
        usage = CallUsage(
            u["prompt_tokens"], u["completion_tokens"], u["prompt_cache_hit_tokens"], u["prompt_cache_miss_tokens"]
        )
        out.append(
            CallRecord(
                id=n,
                turn_id=n,
                conversation_id=call["conversation"],
                step=1,
                provider="deepseek",
                model=call["request"]["model"],
                request_json=json.dumps(call["request"], ensure_ascii=False),
                reply_text=call["reply"],
                reasoning_text=None,
                tool_calls_json=None,
                finish_reason="stop",
                status="ok",
                error=None,
                usage=usage,
                ttft_ms=None,
                latency_ms=None,
                started_at=f"2026-11-24T02:{10 + n}:00+00:00",
            )
        )
    return out


def test_recorded_usage_has_deepseeks_shape():
    for record in records():
        u = record.usage
        assert u.cache_hit_tokens + u.cache_miss_tokens == u.prompt_tokens
        assert u.cache_hit_tokens % UNIT == 0


@pytest.mark.parametrize("index", range(len(EXPECTED)))
def test_explainer_matches_the_recorded_hits(index):
    calls = records()
    previous = calls[index - 1] if index else None
    e = explain(previous, calls[index])
    cause, flagged = EXPECTED[index]
    assert e.cause == cause
    assert e.reported_hit == calls[index].usage.cache_hit_tokens
    assert e.flagged is flagged, (e.predicted_hit, e.reported_hit)
    if not flagged:  # a provider that kept its cache reused exactly what the explainer predicts
        assert e.predicted_hit == e.reported_hit
    if cause in ("append_only", "model_or_params"):
        # the whole previous prompt and reply were reusable, up to the last partial unit
        assert calls[index].usage.prompt_tokens - e.predicted_hit < 2 * UNIT
