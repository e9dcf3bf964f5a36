"""Prefix-cache simulator.

A request's cache hit is the deepest stored prefix *unit* it matches from token 0.
Units are fixed-size token blocks identified by a chained hash
``h_k = H(h_{k-1}, tokens[u*(k-1):u*k])`` (BLAKE2b, so the value is the same in every
process and Python version), so storing a prefix costs one small entry per unit and a
lookup walks the chain until the first unknown unit.

Profiles:

* ``deepseek`` — 64-token units; any matched unit counts (hit is a multiple of 64).
* ``openai``   — 128-token units; a hit counts only from 1024 tokens on
  (1024, 1152, 1280, ...).
* ``none``     — no cache: every lookup is 0.

Entries are kept per API key (under an opaque id derived from it). With ``ttl_seconds`` a
unit expires that many seconds after it was last stored or matched.

With ``path`` the units live in a file (``pixiu_cli.conversation.offline.store``) instead of
memory, so the cache outlives the process like a provider's: one `pixiu ask` per turn
hits what the previous process stored. The file is bounded (``max_units``, least recently
used go first) and units expire after a few idle hours, as DeepSeek's do.
"""

from __future__ import annotations

import hashlib
import threading
import time
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pixiu_cli.conversation.offline.store import PrefixUnitFile
from pixiu_cli.kernel.clock import machine_seconds

# DeepSeek documents that an unused cache is cleared "within a few hours to a few days";
# the lower end keeps offline cost figures on the cautious side.
PERSISTED_TTL_SECONDS = 6 * 3600.0
# ~100k units of 64 tokens: about 6M prompt tokens, a few MB on disk.
PERSISTED_MAX_UNITS = 100_000


@dataclass(frozen=True)
class CacheRules:
    unit: int
    minimum: int


PROFILES: dict[str, CacheRules | None] = {
    "deepseek": CacheRules(unit=64, minimum=64),
    "openai": CacheRules(unit=128, minimum=1024),
    "none": None,
}


def unit_hashes(tokens: Sequence[int], unit: int) -> list[int]:
    """Chained hashes (signed 64-bit) of every complete ``unit``-token block of ``tokens``."""
    hashes: list[int] = []
    previous = b""
    for k in range(len(tokens) // unit):
        block = array("q", tokens[k * unit : (k + 1) * unit]).tobytes()
        previous = hashlib.blake2b(previous + block, digest_size=8).digest()
        hashes.append(int.from_bytes(previous, "big", signed=True))
    return hashes


def owner_id(profile: str, api_key: str) -> int:
    """What the units are filed under: never the key itself, which must not reach a file."""
    digest = hashlib.sha256(f"{profile}\0{api_key}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


class UnitStore(Protocol):
    def last_used(self, owner: int, hashes: Sequence[int]) -> dict[int, float]: ...
    def touch(self, owner: int, hashes: Sequence[int], now: float) -> None: ...
    def purge(self, *, older_than: float | None, keep_at_most: int | None) -> None: ...
    def clear(self) -> None: ...
    def count(self, owner: int | None = None) -> int: ...


class MemoryUnits:
    def __init__(self) -> None:
        self._units: dict[int, dict[int, float]] = {}

    def last_used(self, owner: int, hashes: Sequence[int]) -> dict[int, float]:
        units = self._units.get(owner, {})
        return {h: units[h] for h in hashes if h in units}

    def touch(self, owner: int, hashes: Sequence[int], now: float) -> None:
        units = self._units.setdefault(owner, {})
        for h in hashes:
            units[h] = max(now, units.get(h, now))

    def purge(self, *, older_than: float | None, keep_at_most: int | None) -> None:
        if older_than is not None:
            for units in self._units.values():
                for h in [h for h, t in units.items() if t < older_than]:
                    del units[h]
        if keep_at_most is not None:
            everything = sorted((t, owner, h) for owner, units in self._units.items() for h, t in units.items())
            for _, owner, h in everything[: max(0, len(everything) - keep_at_most)]:
                del self._units[owner][h]

    def clear(self) -> None:
        self._units.clear()

    def count(self, owner: int | None = None) -> int:
        if owner is None:
            return sum(len(units) for units in self._units.values())
        return len(self._units.get(owner, {}))


class PrefixCache:
    def __init__(
        self,
        profile: str = "deepseek",
        ttl_seconds: float | None = None,
        clock: Callable[[], float] | None = None,
        *,
        path: Path | None = None,
        max_units: int | None = None,
    ) -> None:
        if profile not in PROFILES:
            raise ValueError(f"unknown cache profile {profile!r}; expected one of {sorted(PROFILES)}")
        if ttl_seconds is not None and ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive")
        self.profile = profile
        self.rules = PROFILES[profile]
        self.ttl_seconds = ttl_seconds
        self.max_units = max_units
        # A file outlives the process, so its times must be wall-clock times.
        self._clock = clock or (machine_seconds if path is not None else time.monotonic)
        self._lock = threading.Lock()
        self._units: UnitStore
        if path is not None:
            self._units = PrefixUnitFile(path)
        else:
            self._units = MemoryUnits()

    @classmethod
    def persisted(cls, profile: str, path: Path, clock: Callable[[], float] | None = None) -> PrefixCache:
        """The cache pixiu's own offline mode uses: on disk, with DeepSeek-like expiry."""
        return cls(profile, ttl_seconds=PERSISTED_TTL_SECONDS, clock=clock, path=path, max_units=PERSISTED_MAX_UNITS)

    @property
    def enabled(self) -> bool:
        return self.rules is not None

    def _alive(self, last_used: float, now: float) -> bool:
        return self.ttl_seconds is None or now - last_used <= self.ttl_seconds

    def lookup(self, api_key: str, tokens: Sequence[int]) -> int:
        """Cached tokens for a request with these input tokens (refreshes matched units)."""
        if self.rules is None:
            return 0
        now = self._clock()
        owner = owner_id(self.profile, api_key)
        hashes = unit_hashes(tokens, self.rules.unit)
        with self._lock:
            known = self._units.last_used(owner, hashes)
            matched = 0
            for h in hashes:
                last_used = known.get(h)
                if last_used is None or not self._alive(last_used, now):
                    break
                matched += 1
            self._units.touch(owner, hashes[:matched], now)
        hit = matched * self.rules.unit
        return hit if hit >= self.rules.minimum else 0

    def store(self, api_key: str, tokens: Sequence[int]) -> None:
        """Remember every unit-aligned prefix of ``tokens`` for ``api_key``."""
        if self.rules is None:
            return
        now = self._clock()
        hashes = unit_hashes(tokens, self.rules.unit)
        with self._lock:
            if self.ttl_seconds is not None or self.max_units is not None:
                older_than = now - self.ttl_seconds if self.ttl_seconds is not None else None
                keep = max(0, self.max_units - len(hashes)) if self.max_units is not None else None
                self._units.purge(older_than=older_than, keep_at_most=keep)
            self._units.touch(owner_id(self.profile, api_key), hashes, now)

    def reset(self) -> None:
        with self._lock:
            self._units.clear()

    def close(self) -> None:
        close = getattr(self._units, "close", None)
        if close is not None:
            with self._lock:
                close()

    def stored_units(self, api_key: str | None = None) -> int:
        """Units stored for ``api_key`` (all keys when None)."""
        with self._lock:
            return self._units.count(None if api_key is None else owner_id(self.profile, api_key))
