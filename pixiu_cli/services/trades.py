"""Trades the user reports: one record path (the `record_decision` tool today; statements
and a CLI later) and one undo path (`/forget dN`), each with the line that confirms it."""

from __future__ import annotations

from dataclasses import dataclass

from pixiu_cli.domain.vocabulary import SIDES, side_name
from pixiu_cli.services.errors import RequestError
from pixiu_cli.store.domain import Decision, Holding
from pixiu_cli.store.memory import decision_ref, trade_text
from pixiu_cli.store.portfolio import PortfolioStore, UndoneTrade


@dataclass(frozen=True)
class NewTrade:
    symbol: str
    side: str  # one of SIDES
    price: float
    quantity: float
    reason: str | None
    name: str | None  # the stock's name, for a first buy
    source: str  # user | model | import


@dataclass(frozen=True)
class RecordedTrade:
    decision: Decision
    holding: Holding | None  # after the trade; None when it sold the whole position

    @property
    def ref(self) -> str:
        return decision_ref(self.decision.id)

    def holding_line(self) -> str:
        h = self.holding
        return f"持仓 {h.shares:g} 股，成本 {h.cost:.2f}" if h else "已清仓"

    def notice(self) -> str:
        d = self.decision
        return (
            f"已记录 #{self.ref}：{side_name(d.side)} {d.symbol} {d.quantity:g} 股 @ {d.price:g}，"
            f"{self.holding_line()}（/forget {self.ref} 可撤销并恢复持仓）"
        )


def record_trade(db, trade: NewTrade, at: str) -> RecordedTrade:
    if trade.side not in SIDES:
        raise RequestError(f"买卖方向只能是 {' / '.join(SIDES)}，而不是 {trade.side!r}")
    try:
        decision, holding = PortfolioStore(db).record_trade(
            symbol=trade.symbol,
            side=trade.side,
            price=float(trade.price),
            quantity=float(trade.quantity),
            reason=trade.reason,
            name=trade.name,
            at=at,
            source=trade.source,
        )
    except ValueError as exc:  # e.g. selling more than is held: nothing was written
        raise RequestError(str(exc)) from None
    return RecordedTrade(decision, holding)


def undo_trade(db, decision_id: int, at: str) -> UndoneTrade | None:
    """The holding put back as it was before the trade; None when there is no such trade."""
    try:
        return PortfolioStore(db).undo_trade(decision_id, at)
    except ValueError as exc:
        raise RequestError(str(exc)) from None


def undo_notice(ref: str, undone: UndoneTrade) -> str:
    d = undone.decision
    what = trade_text(d.side, d.symbol, d.quantity, d.price, None)
    if not undone.holding_changed:
        after = "持仓未改动（这条是导入的记录）"
    elif undone.holding is None:
        after = f"{d.symbol} 已无持仓"
    else:
        after = f"{d.symbol} 持仓恢复为 {undone.holding.shares:g} 股，成本 {undone.holding.cost:.2f}"
    return f"已撤销 #{ref}：{what}；{after}"
