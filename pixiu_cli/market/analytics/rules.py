"""Alert rule kinds and how a rule reads to the investor. No numpy here: the agent's tool and
the REPL describe rules on every turn without loading the analytics engine.

The user's own stated limits, read from the text of their notes and persona: a position
cap (单只个股仓位不超过总资产的25%, 中芯仓位上限8%), a role's combined cap (卫星仓合计不超过35%),
a stop level (跌破95元止损) and a plan's price (回踩 30 元再加仓, 涨到 400 元减仓). Each is a
number the user wrote, so whether it is at risk is arithmetic on stored prices, not a guess."""

from __future__ import annotations

import re
from dataclasses import dataclass


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


CAP = "cap"  # one position's weight ≤ limit (symbol None: every position)
ROLE_CAP = "role_cap"  # the combined weight of one role's positions ≤ limit
STOP = "stop"  # the close stays above the level
PLAN_BELOW = "plan_below"  # the plan acts once the close falls to the level
PLAN_ABOVE = "plan_above"  # the plan acts once the close rises to the level

_NUM = r"(\d+(?:\.\d+)?)"
_CAP_ANY = re.compile(
    r"(?:单只|单票|个股|每只|单一|任何一只|任意一只|任一只)[^，。；;,%\d]{0,10}?(?:不超过|不高于|不得超过|上限|最多|≤|<=)"
    r"[^，。；;,%\d]{0,8}?" + _NUM + r"\s*[%％]"
)
_CAP_ONE = re.compile(r"(?:仓位|持仓|权重)[^，。；;,%\d]{0,4}?(?:上限|不超过|不高于|最多)\s*" + _NUM + r"\s*[%％]")
_ROLE_CAP = re.compile(
    r"(核心仓|卫星仓)[^，。；;,%\d]{0,6}?(?:合计|总共|加起来)[^，。；;,%\d]{0,6}?(?:不超过|上限|最多)\s*"
    + _NUM
    + r"\s*[%％]"
)
_STOP = (
    re.compile(r"(?:跌破|低于|跌到|跌至)\s*" + _NUM + r"\s*元?[^，。；;,\d]{0,6}?止损"),
    re.compile(r"止损(?:位|价|线)?\s*(?:在|设在|设为|为|是)?\s*" + _NUM + r"\s*元"),
)
_PLAN_BELOW = re.compile(r"(?:回踩|回落到|回落至|回调到|回调至|跌到|跌至|跌破|低于|降到)\s*" + _NUM + r"\s*元")
_PLAN_ABOVE = re.compile(r"(?:涨到|涨至|突破|站上|高于|升到|达到|到达)\s*" + _NUM + r"\s*元")
_ROLES = {"核心仓": "core", "卫星仓": "satellite"}


@dataclass(frozen=True)
class StatedRule:
    kind: str  # CAP | ROLE_CAP | STOP | PLAN_BELOW | PLAN_ABOVE
    symbol: str | None
    level: float  # a fraction for caps, yuan for prices
    role: str | None  # ROLE_CAP only: core | satellite
    text: str  # the clause the number was read from
    origin: str  # where the text is stored: note:N, persona:KEY


def _clauses(text: str) -> list[str]:
    return [c.strip() for c in re.split(r"[，。；;\n]", text) if c.strip()]


def _caps(clause: str, symbol: str | None, origin: str) -> list[StatedRule]:
    role = _ROLE_CAP.search(clause)
    if role:
        return [StatedRule(ROLE_CAP, None, float(role.group(2)) / 100, _ROLES[role.group(1)], clause, origin)]
    whole = _CAP_ANY.search(clause)
    if whole:
        return [StatedRule(CAP, None, float(whole.group(1)) / 100, None, clause, origin)]
    one = _CAP_ONE.search(clause)
    if one and symbol:
        return [StatedRule(CAP, symbol, float(one.group(1)) / 100, None, clause, origin)]
    return []


def _prices(clause: str, symbol: str | None, origin: str, is_plan: bool) -> list[StatedRule]:
    if not symbol:
        return []  # a price means nothing without the stock it is about
    for pattern in _STOP:
        stop = pattern.search(clause)
        if stop:
            return [StatedRule(STOP, symbol, float(stop.group(1)), None, clause, origin)]
    if not is_plan:
        return []
    below, above = _PLAN_BELOW.search(clause), _PLAN_ABOVE.search(clause)
    if below:
        return [StatedRule(PLAN_BELOW, symbol, float(below.group(1)), None, clause, origin)]
    if above:
        return [StatedRule(PLAN_ABOVE, symbol, float(above.group(1)), None, clause, origin)]
    return []


def stated_rules(text: str, symbol: str | None, origin: str, *, is_plan: bool = False) -> list[StatedRule]:
    """Every cap, stop and (for a plan) price stated in `text`, one per clause at most."""
    found = []
    for clause in _clauses(text):
        found += _caps(clause, symbol, origin) or _prices(clause, symbol, origin, is_plan)
    return found


def unique(rules: list[StatedRule]) -> list[StatedRule]:
    """One rule per (kind, stock, role, level): a cap written in the persona and again in a
    note is one cap."""
    seen, out = set(), []
    for rule in rules:
        key = (rule.kind, rule.symbol, rule.role, round(rule.level, 6))
        if key not in seen:
            seen.add(key)
            out.append(rule)
    return out
