"""Alert rule kinds and how a rule reads to the investor. No numpy here: the agent's tool and
the REPL describe rules on every turn without loading the analytics engine."""

from __future__ import annotations


def describe(kind: str, threshold: float, symbol: str, name: str | None = None) -> str:
    who = f"{symbol} {name}" if name else symbol
    return {
        "below": f"{who} 收盘跌破 {threshold:g} 元",
        "above": f"{who} 收盘突破 {threshold:g} 元",
        "change_pct": f"{who} 单日涨跌幅达到 {threshold:g}%",
        "drawdown_from_cost": f"{who} 较持仓成本回撤达到 {threshold:g}%",
    }[kind]


def describe_rule(rule) -> str:
    """A stored rule (domain.analytics.AlertRule) in words, as the alert tables show it."""
    return describe(rule.kind, rule.threshold, rule.symbol)
