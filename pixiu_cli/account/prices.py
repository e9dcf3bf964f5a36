"""Prices per million tokens and the cost of a call, with and without the prompt cache.

The defaults are DeepSeek's published prices (CNY), read from its pricing page on
2026-12-01: per model, the peak-hour rate, and half of it in DeepSeek's idle hours
(Beijing time: weekends, statutory holidays, and weekdays outside 09:00–12:00 and
14:00–18:00). `[prices]` in config.toml replaces them with one table for every model."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time

from pixiu_cli.market.trading_days import SHANGHAI, holiday_name


@dataclass(frozen=True)
class Rates:
    """What one million tokens cost at the peak-hour rate."""

    hit: float
    miss: float
    output: float


_FLASH = Rates(hit=0.04, miss=2.0, output=8.0)
# DeepSeek's pricing page as read on 2026-12-01. deepseek-flash is the name to use;
# deepseek-v4-flash is still accepted and served (and billed) as Flash.
PUBLISHED_RATES: dict[str, Rates] = {
    "deepseek-flash": _FLASH,
    "deepseek-v4-flash": _FLASH,
    "deepseek-v4-pro": Rates(hit=0.30, miss=9.0, output=27.0),
    # The offline responder stands in for DeepSeek (its cache simulation follows DeepSeek's),
    # so its calls are priced as the default model's would be.
    "pixiu-offline": _FLASH,
}
PEAK_HOURS = "09:00-12:00,14:00-18:00"


@dataclass(frozen=True)
class PriceTable:
    currency: str = "CNY"
    hit_per_million: float = _FLASH.hit
    miss_per_million: float = _FLASH.miss
    output_per_million: float = _FLASH.output
    peak_hours: str = PEAK_HOURS  # Beijing time, weekdays that are not holidays
    off_peak_factor: float = 0.5  # DeepSeek's idle-hour price is half the peak price
    source: str = (
        "DeepSeek 公布价（2026-12-01 价格页；高峰价，空闲时段半价），可能已变动，可在 config.toml [prices] 中修改"
    )
    user_set: bool = False  # [prices] in config.toml: the user's prices apply to every model

    def rates_for(self, model: str | None) -> Rates | None:
        """The peak-hour rates for `model`, or None when it cannot be priced (tokens only)."""
        if self.user_set:
            return Rates(self.hit_per_million, self.miss_per_million, self.output_per_million)
        return PUBLISHED_RATES.get(model or "")

    def knows(self, model: str | None) -> bool:
        return self.rates_for(model) is not None

    @classmethod
    def from_mapping(cls, values: dict) -> PriceTable:
        fields = {name for name in cls.__dataclass_fields__ if name != "user_set"}
        unknown = set(values) - fields
        if unknown:
            raise ValueError(f"unknown price settings: {', '.join(sorted(unknown))}")
        converted = {k: (float(v) if isinstance(getattr(cls(), k), float) else str(v)) for k, v in values.items()}
        table = cls(**converted, user_set=bool(values))
        _windows(table.peak_hours)
        return table

    def factor_at(self, moment: datetime | None) -> float:
        """1.0 in peak hours (or when the time is unknown), `off_peak_factor` otherwise."""
        if moment is None or self.off_peak_factor == 1.0:
            return 1.0
        local = moment.astimezone(SHANGHAI)
        if local.weekday() >= 5 or holiday_name(local.date()):
            return self.off_peak_factor
        now = local.time()
        inside = any(start <= now < end for start, end in _windows(self.peak_hours))
        return 1.0 if inside else self.off_peak_factor


def _windows(text: str) -> list[tuple[time, time]]:
    """ "09:00-12:00,14:00-18:00" → [(09:00, 12:00), (14:00, 18:00)]; ValueError when malformed."""
    windows = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        start, sep, end = part.partition("-")
        if not sep:
            raise ValueError(f"peak_hours: {part!r} is not HH:MM-HH:MM")
        windows.append((time.fromisoformat(start.strip()), time.fromisoformat(end.strip())))
    return windows


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
    model: str | None,
    hit: int | None,
    miss: int | None,
    prompt: int | None,
    completion: int | None,
    at: datetime | None,
) -> Cost | None:
    """None when the model has no price or the provider did not report enough to price the call."""
    rates = prices.rates_for(model)
    if rates is None or prompt is None or completion is None:
        return None
    factor = prices.factor_at(at)
    output = completion * rates.output
    without = prompt * rates.miss + output
    if hit is None:
        return Cost(without * factor / 1e6, without * factor / 1e6)
    miss = prompt - hit if miss is None else miss
    actual = hit * rates.hit + miss * rates.miss + output
    return Cost(actual * factor / 1e6, without * factor / 1e6)
