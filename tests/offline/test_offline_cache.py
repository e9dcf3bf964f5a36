"""PrefixCache in isolation (a fake clock drives the TTL)."""

from __future__ import annotations

import pytest

from pixiu_cli.offline.cache import PrefixCache


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def tokens(n: int, start: int = 0) -> list[int]:
    return list(range(start, start + n))


def test_deepseek_hit_is_the_deepest_stored_64_token_unit():
    cache = PrefixCache("deepseek")
    assert cache.lookup("k", tokens(300)) == 0
    cache.store("k", tokens(300))
    assert cache.lookup("k", tokens(300)) == 256
    assert cache.lookup("k", tokens(500)) == 256  # longer request: only the stored part
    assert cache.lookup("k", tokens(100)) == 64
    assert cache.lookup("k", tokens(63)) == 0
    diverging = tokens(130) + [-1] * 200
    assert cache.lookup("k", diverging) == 128
    assert cache.lookup("k", [-1] + tokens(299, 1)) == 0  # first token differs: nothing


def test_cache_is_per_api_key_and_resettable():
    cache = PrefixCache("deepseek")
    cache.store("alice", tokens(200))
    assert cache.lookup("bob", tokens(200)) == 0
    assert cache.lookup("alice", tokens(200)) == 192
    cache.reset()
    assert cache.lookup("alice", tokens(200)) == 0


def test_ttl_expires_units_unless_they_are_used():
    clock = FakeClock()
    cache = PrefixCache("deepseek", ttl_seconds=10, clock=clock)
    cache.store("k", tokens(128))
    clock.now += 8
    assert cache.lookup("k", tokens(128)) == 128  # refreshes both units
    clock.now += 8
    assert cache.lookup("k", tokens(128)) == 128
    clock.now += 11
    assert cache.lookup("k", tokens(128)) == 0
    cache.store("k", tokens(64, 10_000))  # storing purges expired entries
    assert cache.stored_units("k") == 1


def test_openai_profile_needs_1024_tokens_then_steps_of_128():
    cache = PrefixCache("openai")
    cache.store("k", tokens(3000))
    assert cache.lookup("k", tokens(1000)) == 0
    assert cache.lookup("k", tokens(1100)) == 1024
    assert cache.lookup("k", tokens(1151)) == 1024
    assert cache.lookup("k", tokens(1152)) == 1152
    assert cache.lookup("k", tokens(2000)) == 1920


def test_none_profile_never_hits():
    cache = PrefixCache("none")
    cache.store("k", tokens(5000))
    assert cache.lookup("k", tokens(5000)) == 0
    assert not cache.enabled


def test_unknown_profile_is_rejected():
    with pytest.raises(ValueError):
        PrefixCache("anthropic")
