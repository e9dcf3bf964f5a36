"""The limits config.toml sets: the context's windows, counts, freshness and budgets
([context]) and the tool loop's guardrails ([agent]). Plain frozen data at the bottom, so
app.py builds them from the settings' tables without importing the context or the agent."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FreshnessRule:
    days: float  # 0 or less: never stale
    trading: bool = False  # count trading days (signals), not calendar days


@dataclass(frozen=True)
class MemoryLimits:
    """Windows (days), limits and freshness of each class; all configurable in config.toml
    [context]. A `*_fresh_days` of 0 means that class never goes stale."""

    reports_days: float = 3.0
    reports_limit: int = 3
    decisions_days: float = 7.0
    decisions_limit: int = 5
    alerts_days: float = 1.0
    alerts_limit: int = 5
    notes_days: float = 30.0
    notes_limit: int = 5
    rules_limit: int = 10  # rules have no window: in force until withdrawn or replaced
    news_days: float = 14.0
    news_per_symbol: int = 3
    # A named stock's older news on what the question asks (负债率 in 鑫铂负债率62%了?) is
    # looked for this far back, past the news window
    topic_news_days: float = 180.0
    topic_news_limit: int = 2
    trades_days: float = 7.0  # the ledger's fills, for a question that looks back at trades
    trades_limit: int = 12
    holdings_news_limit: int = 10  # the holdings' news together, for a question about all of them
    per_symbol_limit: int = 3  # the symbol's own notes and decisions inside its section
    # A window a time word moved (上个月, 节后, 今年的手续费) lists up to this many of the
    # period's items, not the few of a default window: the question asked for the period
    # (the budget still cuts, by priority)
    period_limit: int = 20
    budget_tokens: int = 3000
    history_budget_tokens: int = 24000  # past this, an old chunk of history is summarised at once
    profiles_fresh_days: float = 90.0
    signals_fresh_trading_days: float = 5.0
    news_fresh_days: float = 7.0
    reports_fresh_days: float = 7.0
    alerts_fresh_days: float = 3.0
    holdings_fresh_days: float = 0.0  # a position stays true until a trade changes it
    persona_fresh_days: float = 365.0

    @classmethod
    def from_mapping(cls, values: dict) -> MemoryLimits:
        known = {k: type(getattr(cls(), k))(v) for k, v in values.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def count(self, limit: int, move: object | None) -> int:
        """How many items a class lists: its own limit, or `period_limit` over a moved window."""
        return limit if move is None else max(limit, self.period_limit)

    def rule(self, kind: str) -> FreshnessRule:
        if kind == "signals":
            return FreshnessRule(self.signals_fresh_trading_days, trading=True)
        return FreshnessRule(getattr(self, f"{kind}_fresh_days"))


@dataclass(frozen=True)
class Guardrails:
    max_steps: int = 8  # model calls per turn, at most (the last one's tool calls are not run)
    tool_timeout: float = 10.0  # seconds per tool run
    block_repeats: bool = True  # the same tool with the same arguments twice in one turn

    def __post_init__(self) -> None:
        if self.max_steps < 1:
            object.__setattr__(self, "max_steps", 1)  # a turn makes at least its first call

    @classmethod
    def from_mapping(cls, values: dict) -> Guardrails:
        return cls(**{k: type(getattr(cls(), k))(v) for k, v in values.items() if k in cls.__dataclass_fields__})
