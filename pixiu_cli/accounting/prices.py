"""Prices per million tokens and the cost of a call, with and without the prompt cache.

The defaults are DeepSeek's published prices for deepseek-chat as of late 2025 (CNY):
they may be outdated — override them in config.toml under [prices]. DeepSeek has run
off-peak discounts in the past (UTC 16:30–00:30); the period is configurable and the
factor defaults to 1.0 (no discount) because no discount is published now."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, time

# The models the default prices are DeepSeek's published prices for. The offline responder
# stands in for DeepSeek (its cache simulation follows DeepSeek's), so its calls are priced
# as DeepSeek's would be. Any other model shows tokens only, unless the user sets [prices].
DEFAULT_PRICED_MODELS = ("deepseek-chat", "deepseek-reasoner", "pixiu-offline")


@dataclass(frozen=True)
class PriceTable:
    currency: str = "CNY"
    hit_per_million: float = 0.2
    miss_per_million: float = 2.0
    output_per_million: float = 3.0
    off_peak_start: str = "16:30"  # UTC
    off_peak_end: str = "00:30"  # UTC
    off_peak_factor: float = 1.0
    source: str = "DeepSeek 公布价（2025 年底，deepseek-chat），可能已过时，可在 config.toml [prices] 中修改"
    user_set: bool = False  # [prices] in config.toml: the user's prices apply to every model

    def knows(self, model: str | None) -> bool:
        """Whether a call to `model` can be priced (else it shows tokens only)."""
        return self.user_set or model in DEFAULT_PRICED_MODELS

    @classmethod
    def from_mapping(cls, values: dict) -> PriceTable:
        fields = {name for name in cls.__dataclass_fields__ if name != "user_set"}
        unknown = set(values) - fields
        if unknown:
            raise ValueError(f"unknown price settings: {', '.join(sorted(unknown))}")
        converted = {k: (float(v) if isinstance(getattr(cls(), k), float) else str(v)) for k, v in values.items()}
        table = cls(**converted, user_set=bool(values))
        time.fromisoformat(table.off_peak_start), time.fromisoformat(table.off_peak_end)
        return table

    def factor_at(self, moment: datetime | None) -> float:
        if moment is None or self.off_peak_factor == 1.0:
            return 1.0
        t = moment.astimezone(UTC).time()
        start, end = time.fromisoformat(self.off_peak_start), time.fromisoformat(self.off_peak_end)
        inside = (start <= t < end) if start <= end else (t >= start or t < end)
        return self.off_peak_factor if inside else 1.0


@dataclass(frozen=True)
class Cost:
    actual: float
    without_cache: float

    @property
    def savings(self) -> float:
        return self.without_cache - self.actual


def call_cost(
    prices: PriceTable,
    *,
    hit: int | None,
    miss: int | None,
    prompt: int | None,
    completion: int | None,
    at: datetime | None,
) -> Cost | None:
    """None when the provider did not report enough to price the call."""
    if prompt is None or completion is None:
        return None
    factor = prices.factor_at(at)
    output = completion * prices.output_per_million
    without = prompt * prices.miss_per_million + output
    if hit is None:
        return Cost(without * factor / 1e6, without * factor / 1e6)
    miss = prompt - hit if miss is None else miss
    actual = hit * prices.hit_per_million + miss * prices.miss_per_million + output
    return Cost(actual * factor / 1e6, without * factor / 1e6)
