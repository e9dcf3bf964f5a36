"""Alert rules: add, remove, list, and the firings nobody has been shown yet. One add path for
`pixiu alert add`, `/alert add` and the `set_alert` tool, so a rule reads, starts and rests the
same whichever surface set it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.vocabulary import is_finite_number, normalise_code
from pixiu_cli.market.analytics.model import FiredAlert
from pixiu_cli.market.analytics.rules import describe
from pixiu_cli.market.security_master import security_name

if TYPE_CHECKING:
    from pixiu_cli.memory.handle import Memory

ALERT_KINDS = ("below", "above", "change_pct", "drawdown_from_cost")
DEFAULT_COOLDOWN_DAYS = 5
MAX_COOLDOWN_DAYS = 250
SOURCE_BY_HAND = "手动"
SOURCE_CONVERSATION = "对话"


@dataclass(frozen=True)
class NewAlert:
    symbol: str
    kind: str  # one of ALERT_KINDS
    threshold: float  # yuan for below/above, percent for the others
    source: str  # SOURCE_BY_HAND | SOURCE_CONVERSATION
    cooldown_days: int = DEFAULT_COOLDOWN_DAYS


@dataclass(frozen=True)
class AddedAlert:
    rule_id: int
    symbol: str
    text: str  # how the rule reads, with the stock's name where pixiu knows it
    checked_through: str | None  # the last stored bar: the rule watches the closes after it

    @property
    def ref(self) -> str:
        return f"a{self.rule_id}"

    def notice(self) -> str:
        return f"已设预警 {self.ref}：{self.text}（/forget {self.ref} 可撤销）"


def _checked(request: NewAlert) -> NewAlert:
    symbol = normalise_code(request.symbol)
    if symbol is None:
        raise RequestError(f"股票代码应为 6 位数字，而不是 {request.symbol!r}")
    if request.kind not in ALERT_KINDS:
        raise RequestError(f"预警条件只能是 {'、'.join(ALERT_KINDS)}，而不是 {request.kind!r}")
    if isinstance(request.threshold, bool) or not is_finite_number(request.threshold) or request.threshold <= 0:
        raise RequestError(f"阈值应为正数，而不是 {request.threshold}")
    days = request.cooldown_days
    if isinstance(days, bool) or not isinstance(days, int) or not 0 <= days <= MAX_COOLDOWN_DAYS:
        raise RequestError(f"冷却天数应为 0 到 {MAX_COOLDOWN_DAYS} 之间的整数，而不是 {days!r}")
    return NewAlert(symbol, request.kind, float(request.threshold), request.source, days)


def stock_name(memory: Memory, symbol: str) -> str | None:
    """The name a rule is described with: the holding's, else the security master's (the
    one the alert's firing messages use)."""
    holding = memory.investor.holding(symbol)
    if holding and holding.name and holding.name != symbol:
        return holding.name
    return security_name(memory.market.securities, symbol)


def add_alert(memory: Memory, request: NewAlert, at: str) -> AddedAlert:
    """Store the rule. Bars already stored are history: the rule is checked from the close
    after the last of them (from its creation day when there are none yet)."""
    request = _checked(request)
    if request.kind == "drawdown_from_cost" and memory.investor.holding(request.symbol) is None:
        raise RequestError(f"没有持有 {request.symbol}：较成本回撤预警需要持仓成本（可改用 --below 价格）")
    last_bar = memory.market.bars.series([request.symbol])[0].last
    rule_id = memory.market.analytics.add_rule(
        symbol=request.symbol,
        kind=request.kind,
        threshold=request.threshold,
        cooldown_days=request.cooldown_days,
        created_at=at,
        source=request.source,
        checked_through=last_bar,
    )
    text = describe(request.kind, request.threshold, request.symbol, stock_name(memory, request.symbol))
    return AddedAlert(rule_id, request.symbol, text, last_bar)


# An alert rule's id as written in the memory's lists (`a3`), also as a Chinese IME may type it
# (`#a3`, `ａ3`); 18 digits at most, which SQLite can hold.
_RULE_REF = re.compile(r"#?[aＡａA]([0-9]{1,18})")


def rule_ref(typed: str) -> int | None:
    """`a3`, `#a3`, `Ａ3` → 3: a rule named as the memory names it, or None."""
    found = _RULE_REF.fullmatch(typed.strip())
    return int(found.group(1)) if found else None


def parse_rule_id(raw: str) -> int | None:
    """A rule's id where only a rule can be meant (`pixiu alert remove`): its reference, or the
    bare number (`3`); anything else None."""
    text = raw.strip()
    ref = rule_ref(text)
    if ref is not None:
        return ref
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 18 else None


def take_unseen_alerts(memory: Memory, at: str) -> list[FiredAlert]:
    """Alerts fired by imports or syncs since they were last shown, marked shown."""
    store = memory.market.analytics
    fired = store.unseen_alerts()
    store.mark_seen([a.id for a in fired], at)
    return fired
