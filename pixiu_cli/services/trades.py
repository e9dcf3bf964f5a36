"""Trades the user reports one at a time: one record path (the `record_decision` tool and
`pixiu trade buy|sell`; statements: services/statements.py) and one undo path
(`/forget dN`), each with the line that confirms it."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from pixiu_cli.domain.investor import Decision, Holding
from pixiu_cli.domain.ledger import positions
from pixiu_cli.domain.vocabulary import SIDES, side_name
from pixiu_cli.services.account import trade_day
from pixiu_cli.services.errors import RequestError
from pixiu_cli.store.account import AccountStore
from pixiu_cli.store.database import write_transaction
from pixiu_cli.store.memory import decision_ref, trade_text
from pixiu_cli.store.portfolio import PortfolioStore, UndoneTrade, set_position


@dataclass(frozen=True)
class NewTrade:
    symbol: str
    side: str  # one of SIDES
    price: float
    quantity: float
    reason: str | None
    name: str | None  # the stock's name, for a first buy
    source: str  # user | model | import
    day: str | None = None  # the user's words for the day (今天 / 昨天 / 3月3日 / 2025-03-03); None: today
    fee: float = 0.0  # commission, stamp duty and transfer fee together


@dataclass(frozen=True)
class RecordedTrade:
    decision: Decision
    holding: Holding | None  # after the trade; None when it sold the whole position
    backdated: bool = False  # told on a later day than it happened

    @property
    def ref(self) -> str:
        return decision_ref(self.decision.id)

    def holding_line(self) -> str:
        h = self.holding
        return f"持仓 {h.shares:g} 股，成本 {h.cost:.2f}" if h else "已清仓"

    def notice(self) -> str:
        d = self.decision
        return (
            f"已记录 #{self.ref}：{d.decided_at[:10] + ' ' if self.backdated else ''}{side_name(d.side)} {d.symbol} {d.quantity:g} 股 @ {d.price:g}，"
            f"{self.holding_line()}（/forget {self.ref} 可撤销并恢复持仓）"
        )


def _decided_at(trade: NewTrade, at: str) -> str:
    """When the trade happened: now for today, the day's start for an earlier day."""
    now = datetime.fromisoformat(at)
    day = trade_day(trade.day, now)
    return at if day == now.date() else f"{day.isoformat()}T00:00:00{at[19:] or '+08:00'}"


def _follows_fills(db, symbol: str) -> bool:
    """The stock's fills add up to its holding (a statement imported it): a new trade
    then re-derives the holding from the fills, so its cost keeps the configured method."""
    fills = AccountStore(db).fills(symbol)
    if not fills:
        return False
    row = db.conn.execute("select shares from holdings where symbol = ?", [symbol]).fetchone()
    held = positions(fills)[symbol].shares
    return math.isclose(held, row[0] if row else 0.0, abs_tol=1e-6)


def _rederive(db, symbol: str, method: str, at: str) -> Holding | None:
    p = positions(AccountStore(db).fills(symbol))[symbol]
    cost = p.cost(method)
    cost = cost if cost is not None and cost > 0 else p.average_cost
    with write_transaction(db):
        set_position(db, symbol, p.name, p.shares, cost, at)
    from pixiu_cli.store.domain import DomainStore

    return DomainStore(db).holding(symbol)


def record_trade(db, trade: NewTrade, at: str, cost_method: str = "diluted") -> RecordedTrade:
    if trade.side not in SIDES:
        raise RequestError(f"买卖方向只能是 {' / '.join(SIDES)}，而不是 {trade.side!r}")
    decided_at = _decided_at(trade, at)
    follows = _follows_fills(db, trade.symbol)
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
            fee=float(trade.fee),
            decided_at=decided_at,
        )
    except ValueError as exc:  # e.g. selling more than is held: nothing was written
        raise RequestError(str(exc)) from None
    if follows:
        holding = _rederive(db, trade.symbol, cost_method, at)
    return RecordedTrade(decision, holding, decided_at != at)


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
