"""What local analytics compute and store: every strategy's backtest, the selected profile,
alert rules and the alerts they fire, and each decision's scored outcome."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BacktestRow:
    symbol: str
    strategy: str
    label: str
    window_start: str
    window_end: str
    annual_return: float
    max_drawdown: float
    sharpe: float | None
    win_rate: float | None
    trades: int
    exposure: float
    excess_return: float
    in_sample_sharpe: float | None
    out_annual_return: float
    out_sharpe: float | None
    selected: bool
    as_of: str
    engine_version: str
    cost_model: str
    data_source: str
    computed_at: str


@dataclass(frozen=True)
class ComputedProfile:
    symbol: str
    strategy: str
    period: str
    annual_return: float
    max_drawdown: float
    win_rate: float | None
    sharpe: float | None
    best_role: str
    conclusion: str
    as_of: str
    engine_version: str
    cost_model: str
    data_source: str
    trades: int
    exposure: float
    excess_return: float
    out_annual_return: float
    out_sharpe: float | None


@dataclass(frozen=True)
class AlertRule:
    id: int
    symbol: str
    kind: str  # below | above | change_pct | drawdown_from_cost
    threshold: float
    cooldown_days: int
    created_at: str
    source: str  # 手动 | 对话
    checked_through: str | None = None  # last bar date evaluated
    last_fired_on: str | None = None


@dataclass(frozen=True)
class FiredAlert:
    id: int
    symbol: str | None
    rule: str | None
    message: str
    triggered_at: str
    bar_date: str | None


@dataclass(frozen=True)
class DecisionScore:
    decision_id: int
    return_5d: float | None
    return_20d: float | None
    outcome_5d: float | None
    outcome_20d: float | None
    vs_stock_5d: float | None
    vs_stock_20d: float | None
    scored_at: str
