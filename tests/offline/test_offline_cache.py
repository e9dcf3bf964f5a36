"""PrefixCache in isolation (a fake clock drives the TTL)."""

from __future__ import annotations

import pytest

from pixiu_cli.conversation.offline.cache import PrefixCache


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


# -- the cache on disk (pixiu's own offline mode) --------------------------------------------


def test_persisted_units_outlive_the_instance(tmp_path):
    path = tmp_path / "offline_cache.db"
    first = PrefixCache.persisted("deepseek", path)
    first.store("k", tokens(300))
    first.close()
    second = PrefixCache.persisted("deepseek", path)  # what the next process sees
    assert second.lookup("k", tokens(300)) == 256
    assert second.lookup("other key", tokens(300)) == 0
    assert PrefixCache.persisted("openai", path).lookup("k", tokens(300)) == 0  # per profile too


def test_persisted_units_expire_after_idle_hours_unless_used(tmp_path):
    from pixiu_cli.conversation.offline.cache import PERSISTED_TTL_SECONDS

    clock = FakeClock()
    path = tmp_path / "offline_cache.db"
    PrefixCache.persisted("deepseek", path, clock=clock).store("k", tokens(128))
    clock.now += PERSISTED_TTL_SECONDS - 60
    assert PrefixCache.persisted("deepseek", path, clock=clock).lookup("k", tokens(128)) == 128  # refreshed
    clock.now += PERSISTED_TTL_SECONDS - 60
    assert PrefixCache.persisted("deepseek", path, clock=clock).lookup("k", tokens(128)) == 128
    clock.now += PERSISTED_TTL_SECONDS + 1
    later = PrefixCache.persisted("deepseek", path, clock=clock)
    assert later.lookup("k", tokens(128)) == 0
    later.store("k2", tokens(64, 10_000))  # storing purges what expired
    assert later.stored_units() == 1


def test_persisted_file_is_bounded_least_recently_used_first(tmp_path):
    clock = FakeClock()
    cache = PrefixCache("deepseek", ttl_seconds=None, clock=clock, path=tmp_path / "c.db", max_units=6)
    cache.store("old", tokens(256))  # 4 units
    clock.now += 1
    cache.store("new", tokens(256, 5000))  # 4 more: two of the older ones go
    assert cache.stored_units() == 6
    assert (cache.stored_units("old"), cache.stored_units("new")) == (2, 4)
    assert cache.lookup("new", tokens(256, 5000)) == 256


def test_persisted_file_never_holds_the_api_key(tmp_path):
    path = tmp_path / "offline_cache.db"
    cache = PrefixCache.persisted("deepseek", path)
    cache.store("sk-very-secret-key-123", tokens(200))
    cache.close()
    for file in tmp_path.iterdir():
        assert b"sk-very-secret" not in file.read_bytes()


def test_an_unreadable_cache_file_is_replaced(tmp_path):
    path = tmp_path / "offline_cache.db"
    path.write_bytes(b"this is not a database" * 100)
    cache = PrefixCache.persisted("deepseek", path)
    assert cache.lookup("k", tokens(200)) == 0
    cache.store("k", tokens(200))
    assert cache.lookup("k", tokens(200)) == 192


def _hammer(path: str, worker: int) -> None:
    cache = PrefixCache.persisted("deepseek", __import__("pathlib").Path(path))
    for round_ in range(20):
        cache.lookup("k", tokens(640))
        cache.store("k", tokens(640))
        cache.store(f"w{worker}", tokens(128, 100_000 * worker + round_ * 1000))
    cache.close()


@pytest.mark.slow
def test_processes_writing_at_once_leave_a_consistent_file(tmp_path):
    import multiprocessing
    import sqlite3

    path = tmp_path / "offline_cache.db"
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_hammer, args=(str(path), n)) for n in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert [w.exitcode for w in workers] == [0, 0, 0, 0]
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone() == ("ok",)
    cache = PrefixCache.persisted("deepseek", path)
    assert cache.lookup("k", tokens(640)) == 640
    assert [cache.stored_units(f"w{n}") for n in range(4)] == [40] * 4
