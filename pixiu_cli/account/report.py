"""Prices per million tokens and the cost of a call, with and without the prompt cache.

The defaults are DeepSeek's published prices (CNY), read from its pricing page on
2026-12-01: per model, the peak-hour rate, and half of it in DeepSeek's idle hours
(Beijing time: weekends, statutory holidays, and weekdays outside 09:00–12:00 and
14:00–18:00). `[prices]` in config.toml replaces them with one table for every model.

What /cache shows: per call, per turn and totals (conversation, today, all time), with
cost and savings, and for each call why it missed. Unknown stays unknown."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, time
from typing import TYPE_CHECKING

from pixiu_cli.account.explain import REPLY_REACH, BreakExplanation, explain, explanation_json, stored_explanation
from pixiu_cli.conversation.handle import UsageRow
from pixiu_cli.market.calendar import SHANGHAI
from pixiu_cli.market.trading_days import holiday_name

if TYPE_CHECKING:
    from pixiu_cli.conversation.handle import CallRecord, ConversationStore


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


@dataclass(frozen=True)
class CallLine:
    call_id: int
    turn_seq: int
    step: int
    prompt_tokens: int | None
    cache_hit_tokens: int | None
    cache_miss_tokens: int | None
    completion_tokens: int | None
    latency_ms: float | None
    status: str
    explanation: BreakExplanation
    cost: float | None

    @property
    def hit_rate(self) -> float | None:
        if self.cache_hit_tokens is None or not self.prompt_tokens:
            return None
        return self.cache_hit_tokens / self.prompt_tokens


@dataclass(frozen=True)
class Totals:
    calls: int = 0
    prompt_tokens: int = 0
    cache_hit_tokens: int | None = 0  # None: no call reported cache data
    cache_miss_tokens: int | None = 0
    completion_tokens: int = 0
    unreported_calls: int = 0  # calls whose provider reported no cache fields
    cost: float = 0.0
    cost_without_cache: float = 0.0
    unpriced_calls: int = 0  # calls to a model the price table does not know: tokens only

    @property
    def hit_rate(self) -> float | None:
        if self.cache_hit_tokens is None or not self.prompt_tokens:
            return None
        return self.cache_hit_tokens / self.prompt_tokens

    @property
    def priced(self) -> bool:
        """Whether any call here has a price (no calls at all: a cost of zero is right)."""
        return not self.calls or self.unpriced_calls < self.calls

    @property
    def savings(self) -> float:
        return self.cost_without_cache - self.cost


@dataclass(frozen=True)
class TurnLine:
    seq: int
    calls: int
    totals: Totals


@dataclass(frozen=True)
class CacheReport:
    conversation_id: int | None
    calls: list[CallLine]
    turns: list[TurnLine]
    conversation: Totals
    today: Totals
    all_time: Totals
    prices: PriceTable = field(default_factory=PriceTable)

    def as_json(self) -> dict:
        def totals(t: Totals) -> dict:
            priced = {} if t.priced else {"cost": None, "cost_without_cache": None}
            return {**asdict(t), **priced, "hit_rate": t.hit_rate, "savings": t.savings if t.priced else None}

        return {
            "conversation_id": self.conversation_id,
            "prices": asdict(self.prices),
            "calls": [
                {
                    **{k: v for k, v in asdict(c).items() if k != "explanation"},
                    "hit_rate": c.hit_rate,
                    "break": {
                        "cause": c.explanation.cause,
                        "label": c.explanation.label,
                        "common_tokens": c.explanation.common_tokens,
                        "predicted_hit": c.explanation.predicted_hit,
                        "reported_hit": c.explanation.reported_hit,
                        "gap": c.explanation.gap,
                        "flagged": c.explanation.flagged,
                        "detail": c.explanation.detail,
                    },
                }
                for c in self.calls
            ],
            "turns": [{"turn": t.seq, "calls": t.calls, **totals(t.totals)} for t in self.turns],
            "totals": {
                "conversation": totals(self.conversation),
                "today": totals(self.today),
                "all_time": totals(self.all_time),
            },
        }


def _moment(stamp: str | None) -> datetime | None:
    try:
        return datetime.fromisoformat(stamp) if stamp else None
    except ValueError:
        return None


def totals_of(rows: list[UsageRow], prices: PriceTable) -> Totals:
    calls = prompt = completion = hit = miss = unreported = unpriced = 0
    cost = without = 0.0
    for row in rows:
        calls += 1
        prompt += row.prompt_tokens or 0
        completion += row.completion_tokens or 0
        if row.cache_hit_tokens is None:
            unreported += 1
        else:
            hit += row.cache_hit_tokens
            miss += (
                row.cache_miss_tokens
                if row.cache_miss_tokens is not None
                else (row.prompt_tokens or 0) - row.cache_hit_tokens
            )
        if not prices.knows(row.model):
            unpriced += 1
            continue
        priced = _cost_of(row, prices)
        if priced is not None:
            cost += priced.actual
            without += priced.without_cache
    known = calls - unreported
    return Totals(
        calls, prompt, hit if known else None, miss if known else None, completion, unreported, cost, without, unpriced
    )


def _cost_of(row: UsageRow, prices: PriceTable):
    """One call's cost at the prices of its day (None: not priced or tokens not reported)."""
    return call_cost(
        prices,
        model=row.model,
        hit=row.cache_hit_tokens,
        miss=row.cache_miss_tokens,
        prompt=row.prompt_tokens,
        completion=row.completion_tokens,
        at=_moment(row.started_at),
    )


def _row(call: CallRecord) -> UsageRow:
    u = call.usage
    return UsageRow(
        call.started_at, u.prompt_tokens, u.completion_tokens, u.cache_hit_tokens, u.cache_miss_tokens, call.model
    )


def _previous_for(call: CallRecord, earlier: list[CallRecord]) -> CallRecord | None:
    """The call whose cached prefix this one should reuse: the last earlier call of the same
    kind (answer vs summary) in this conversation, else the last call at all."""
    same_kind = [c for c in earlier if c.conversation_id == call.conversation_id and (c.step < 0) == (call.step < 0)]
    if same_kind:
        return same_kind[-1]
    return earlier[-1] if earlier else None


def build_report(
    store: ConversationStore,
    conversation_id: int | None,
    prices: PriceTable,
    now: datetime | None = None,
    explain_last: int | None = None,
) -> CacheReport:
    """Reads each call's stored explanation; a call stored without one (made before they
    were worked out at the end of every call) is explained here once and kept. With
    `explain_last`, older such calls are left unexplained."""
    now = now or store.clock()  # the clock the calls were stamped by: today is the same day
    calls = store.calls_for_conversation(conversation_id, REPLY_REACH) if conversation_id is not None else []
    calls = [c for c in calls if c.status != "pending"]
    earlier_than_first = store.last_call_before(calls[0].id, REPLY_REACH) if calls else None
    seq_of_turn = store.turn_seqs(conversation_id) if conversation_id is not None else {}
    before = [earlier_than_first] if earlier_than_first else []
    lines: list[CallLine] = []
    for index, call in enumerate(calls):
        if explain_last is None or index >= len(calls) - explain_last:
            explanation = stored_explanation(call) or _worked_out(store, call, before + calls[:index])
        else:  # their figures still count
            explanation = BreakExplanation("append_only", 0, 0, call.usage.cache_hit_tokens, "未分析")
        lines.append(_call_line(call, seq_of_turn.get(call.turn_id, 0), explanation, prices))
    midnight = datetime.combine(now.astimezone(SHANGHAI).date(), time(0), SHANGHAI).astimezone(UTC)
    return CacheReport(
        conversation_id,
        lines,
        _turn_lines(lines, calls, prices),
        conversation=totals_of([_row(c) for c in calls], prices),
        today=totals_of(store.usage_rows(since_utc=midnight.isoformat(timespec="milliseconds")), prices),
        all_time=totals_of(store.usage_rows(), prices),
        prices=prices,
    )


def _worked_out(store: ConversationStore, call: CallRecord, earlier: list[CallRecord]) -> BreakExplanation:
    """Explain a call nothing explained yet (a one-shot `ask` leaves that to /cache) and keep
    the result, so the next view only reads it. Keeping it is an optimisation: a database
    another process holds locked costs only the saving."""
    explanation = explain(_previous_for(call, earlier), call)
    try:
        store.set_cache_explanation(call.id, explanation_json(explanation))
    except Exception:  # noqa: BLE001 - the report is shown either way
        pass
    return explanation


def _call_line(call: CallRecord, turn_seq: int, explanation: BreakExplanation, prices: PriceTable) -> CallLine:
    """One call's figures; its cost only when the price table knows its model."""
    priced = (
        call_cost(
            prices,
            model=call.model,
            hit=call.usage.cache_hit_tokens,
            miss=call.usage.cache_miss_tokens,
            prompt=call.usage.prompt_tokens,
            completion=call.usage.completion_tokens,
            at=_moment(call.started_at),
        )
        if prices.knows(call.model)
        else None
    )
    return CallLine(
        call.id,
        turn_seq,
        call.step,
        call.usage.prompt_tokens,
        call.usage.cache_hit_tokens,
        call.usage.cache_miss_tokens,
        call.usage.completion_tokens,
        call.latency_ms,
        call.status,
        explanation,
        priced.actual if priced else None,
    )


def _turn_lines(lines: list[CallLine], calls: list[CallRecord], prices: PriceTable) -> list[TurnLine]:
    by_turn: dict[int, list[CallRecord]] = {}
    for line, call in zip(lines, calls):
        by_turn.setdefault(line.turn_seq, []).append(call)
    return [
        TurnLine(seq, len(group), totals_of([_row(c) for c in group], prices)) for seq, group in sorted(by_turn.items())
    ]


def rows_cost(rows: Sequence[UsageRow], prices: PriceTable) -> float | None:
    """What these calls cost (a turn's, as it kept them), or None when any of them cannot be
    priced, or there are none."""
    total = 0.0
    for row in rows:
        priced = _cost_of(row, prices)
        if priced is None:
            return None
        total += priced.actual
    return total if rows else None


def money_text(value: float, currency: str) -> str:
    """¥0.0031 for CNY (the status line's few-cent figures need four places), else the code."""
    sign = {"CNY": "¥", "RMB": "¥", "USD": "$"}.get(currency.upper())
    amount = f"{value:.4f}" if value < 1 else f"{value:,.2f}"
    return f"{sign}{amount}" if sign else f"{amount} {currency}"
