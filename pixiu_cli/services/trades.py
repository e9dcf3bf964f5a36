"""Trades the user reports one at a time: one record path (the `record_decision` tool and
`pixiu trade buy|sell`; statements: services/statements.py) and one undo path
(`/forget dN`). A recorded trade carries the line that confirms it (the tool shows it too);
an undone one is confirmed by views/notices.py."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from pixiu_cli.domain.codes import is_finite_number
from pixiu_cli.domain.investor import Decision, Holding
from pixiu_cli.domain.plausible import fill_problems
from pixiu_cli.domain.vocabulary import SIDES, side_name
from pixiu_cli.services.account import (
    Held,
    derive_positions,
    held_position,
    sync_holding,
    trade_day,
    trade_price_refusal,
)
from pixiu_cli.services.errors import RequestError
from pixiu_cli.store.database import write_transaction
from pixiu_cli.store.memory import decision_ref
from pixiu_cli.store.portfolio import UndoneTrade
from pixiu_cli.store.shared import stores_of

if TYPE_CHECKING:
    from sqlite_utils import Database


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
    holding: Holding | None  # the holding row after the trade; None when it sold the whole position
    backdated: bool = False  # told on a later day than it happened
    held: Held | None = None  # the account's shares and cost after it (corporate actions included)

    @property
    def ref(self) -> str:
        return decision_ref(self.decision.id)

    def holding_line(self) -> str:
        return self.held.line() if self.held is not None else "已清仓"

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


def _check_sell(db: Database, trade: NewTrade, now: datetime) -> None:
    if trade.side != "sell":
        return
    held = held_position(db, trade.symbol, now).shares
    if Decimal(repr(float(trade.quantity))) > held:
        raise RequestError(f"卖出数量 {float(trade.quantity):g} 超过持仓 {float(held):g} 股")


def _check_values(trade: NewTrade) -> None:
    """The checks a statement's trade passes: one told one at a time is no more believable."""
    price, quantity, fee = trade.price, trade.quantity, trade.fee
    if not all(is_finite_number(v) for v in (price, quantity, fee)) or fee < 0:
        return  # not a price, a size or a fee at all: the store says so
    values = dict(quantity=float(quantity), price=float(price), amount=float(price) * float(quantity), fees=float(fee))
    for _, problem in fill_problems(moves_shares=True, **values):
        raise RequestError(f"不能记录这笔交易：{problem}")


def record_trade(db: Database, trade: NewTrade, at: str, cost_method: str = "diluted") -> RecordedTrade:
    if trade.side not in SIDES:
        raise RequestError(f"买卖方向只能是 {' / '.join(SIDES)}，而不是 {trade.side!r}")
    _check_values(trade)
    decided_at = _decided_at(trade, at)
    if is_finite_number(trade.price) and (
        problem := trade_price_refusal(db, trade.symbol, decided_at[:10], float(trade.price))
    ):
        raise RequestError(f"不能记录这笔交易：{problem}")
    now = datetime.fromisoformat(at)
    try:
        with write_transaction(db):
            _check_sell(db, trade, now)
            decision = stores_of(db).portfolio.record_trade(
                symbol=trade.symbol,
                side=trade.side,
                price=float(trade.price),
                quantity=float(trade.quantity),
                reason=trade.reason,
                at=at,
                source=trade.source,
                fee=float(trade.fee),
                decided_at=decided_at,
                name=trade.name,
            )
            holding = sync_holding(db, trade.symbol, now, cost_method, at)
    except ValueError as exc:  # e.g. a price that is not a number: nothing was written
        raise RequestError(str(exc)) from None
    return RecordedTrade(decision, holding, decided_at != at, held_position(db, trade.symbol, now, cost_method))


def _opening(db: Database, symbol: str | None, now: datetime) -> Decimal:
    p = derive_positions(db, now, [symbol]).get(symbol) if symbol else None
    return p.opening_shares if p is not None else Decimal(0)


def undo_trade(db: Database, decision_id: int, at: str, cost_method: str = "diluted") -> UndoneTrade | None:
    """The trade's fill leaves the ledger and the holding follows; None when there is no such trade."""
    now = datetime.fromisoformat(at)
    try:
        with write_transaction(db):
            row = stores_of(db).investor.decision(decision_id)
            before = _opening(db, row.symbol if row else None, now)
            undone = stores_of(db).portfolio.undo_trade(decision_id, at)
            if undone is None:
                return None
            if _opening(db, undone.decision.symbol, now) > before:
                # without the buy, a later sale sells shares the ledger never had
                raise RequestError("无法撤销这笔买入：之后卖出的股数多于其余买入（之后有卖出，请先撤销那笔卖出）")
            holding = sync_holding(db, undone.decision.symbol, now, cost_method, at)
            return replace(undone, holding=holding, held=held_position(db, undone.decision.symbol, now, cost_method))
    except ValueError as exc:
        raise RequestError(str(exc)) from None
