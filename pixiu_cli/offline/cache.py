"""Prefix-cache simulator.

A request's cache hit is the deepest stored prefix *unit* it matches from token 0.
Units are fixed-size token blocks identified by a chained hash
``h_k = hash((h_{k-1}, tuple(tokens[u*(k-1):u*k])))``, so storing a prefix costs one
small entry per unit and a lookup walks the chain until the first unknown unit.

Profiles:

* ``deepseek`` — 64-token units; any matched unit counts (hit is a multiple of 64).
* ``openai``   — 128-token units; a hit counts only from 1024 tokens on
  (1024, 1152, 1280, ...).
* ``none``     — no cache: every lookup is 0.

Entries are kept per API key. With ``ttl_seconds`` a unit expires that many seconds
after it was last stored or matched.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass


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
    """Chained hashes of every complete ``unit``-token block of ``tokens``."""
    hashes: list[int] = []
    previous = 0
    for k in range(len(tokens) // unit):
        previous = hash((previous, tuple(tokens[k * unit : (k + 1) * unit])))
        hashes.append(previous)
    return hashes


class PrefixCache:
    def __init__(
        self,
        profile: str = "deepseek",
        ttl_seconds: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if profile not in PROFILES:
            raise ValueError(f"unknown cache profile {profile!r}; expected one of {sorted(PROFILES)}")
        if ttl_seconds is not None and ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive")
        self.profile = profile
        self.rules = PROFILES[profile]
        self.ttl_seconds = ttl_seconds
        self._clock = clock
        self._lock = threading.Lock()
        # api_key -> {unit hash -> last use (clock seconds)}
        self._units: dict[str, dict[int, float]] = {}

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
        matched = 0
        with self._lock:
            units = self._units.get(api_key, {})
            for h in unit_hashes(tokens, self.rules.unit):
                last_used = units.get(h)
                if last_used is None or not self._alive(last_used, now):
                    break
                units[h] = now
                matched += 1
        hit = matched * self.rules.unit
        return hit if hit >= self.rules.minimum else 0

    def store(self, api_key: str, tokens: Sequence[int]) -> None:
        """Remember every unit-aligned prefix of ``tokens`` for ``api_key``."""
        if self.rules is None:
            return
        now = self._clock()
        with self._lock:
            units = self._units.setdefault(api_key, {})
            if self.ttl_seconds is not None:
                for h in [h for h, t in units.items() if not self._alive(t, now)]:
                    del units[h]
            for h in unit_hashes(tokens, self.rules.unit):
                units[h] = now

    def reset(self) -> None:
        with self._lock:
            self._units.clear()

    def stored_units(self, api_key: str) -> int:
        with self._lock:
            return len(self._units.get(api_key, {}))
