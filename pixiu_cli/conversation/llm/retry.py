"""When to try a model call again, and how long to wait first.

Only a call that failed before any of its reply reached the user is retried by the client:
once text is on screen a retry would show a second, different answer."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from pixiu_cli.kernel.clock import machine_seconds

RETRYABLE_STATUS = frozenset({408, 409, 429})
# Kinds of LLMError that a fresh attempt can fix (if nothing was shown yet).
RETRYABLE_KINDS = frozenset({"connection", "timeout", "dropped", "malformed"})
MAX_RETRY_AFTER = 120.0  # a server asking for longer is not waited for
INITIAL_DELAY = 0.5
MAX_DELAY = 8.0


def retryable_status(status: int | None) -> bool:
    return status is not None and (status in RETRYABLE_STATUS or status >= 500)


def parse_retry_after(headers) -> float | None:
    """Seconds from `retry-after-ms` or `Retry-After` (seconds or an HTTP date), or None."""
    if headers is None:
        return None
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / divisor
        except ValueError:
            continue
        if math.isnan(seconds) or seconds < 0:
            return None  # a value no server means (Retry-After: -5): our own backoff instead
        return seconds if math.isfinite(seconds) else MAX_RETRY_AFTER + 1
    import email.utils  # only for an HTTP date; every process that builds a client imports this module

    raw = headers.get("retry-after")
    parsed = email.utils.parsedate_tz(raw) if raw else None
    if parsed is None:
        return None
    return max(0.0, email.utils.mktime_tz(parsed) - machine_seconds())


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 2
    deadline_seconds: float = 600.0
    initial_delay: float = INITIAL_DELAY
    max_delay: float = MAX_DELAY

    def delay(self, retry_number: int, retry_after: float | None, rng=random) -> float | None:
        """Seconds to wait before retry `retry_number` (1-based), or None: do not retry.

        Without Retry-After the wait doubles, with "equal jitter" (half fixed, half random) so
        that clients hit by the same outage do not come back in step, while each wait is
        still at least as long as the one before."""
        if retry_number > self.max_retries:
            return None
        if retry_after is not None:
            if retry_after > MAX_RETRY_AFTER:
                return None
            # Never earlier than asked; a little later at random, so waiting clients spread out.
            return retry_after + rng.uniform(0, min(1.0, retry_after * 0.1))
        base = min(self.initial_delay * 2 ** (retry_number - 1), self.max_delay)
        return base / 2 + rng.uniform(0, base / 2)
