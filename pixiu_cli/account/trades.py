"""Trades the user reports one at a time: one record path (the `record_decision` tool and
`pixiu trade buy|sell`; statements: services/statements.py) and one undo path
(`/forget dN`). A recorded trade carries the line that confirms it (the tool shows it too);
an undone one is confirmed by views/notices.py."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from pixiu_cli.account.fees import trade_cost
from pixiu_cli.account.model import UndoneTrade
from pixiu_cli.account.overview import (
    Held,
    derive_positions,
    held_position,
    sync_holding,
    sync_holding_to,
    trade_day,
    trade_price_refusal,
)
from pixiu_cli.home.model import Decision, Holding
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.settings import Commission
from pixiu_cli.kernel.store.database import write_transaction
from pixiu_cli.kernel.vocabulary import SIDES, is_finite_number, side_name
from pixiu_cli.market.plausible import fill_problems
from pixiu_cli.market.securities import fits_order, odd_part, order_rule, order_size, sellable_size
from pixiu_cli.memory.model import decision_ref

if TYPE_CHECKING:
    from pixiu_cli.account.handle import Account
    from pixiu_cli.account.ledger import Position


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
    fee: float | None = None  # commission, stamp duty and transfer fee together; None: estimated


@dataclass(frozen=True)
class RecordedTrade:
    decision: Decision
    holding: Holding | None  # the holding row after the trade; None when it sold the whole position
    backdated: bool = False  # told on a later day than it happened
    held: Held | None = None  # the account's shares and cost after it (corporate actions included)
    dividend_tax: Decimal = Decimal(0)  # the ledger's dividend tax on a sale's day (domain/dividend_tax.py)
    fee: float = 0.0
    fee_estimated: bool = False  # the fee is the account's rates applied, not the user's figure

    @property
    def ref(self) -> str:
        return decision_ref(self.decision.id)

    def holding_line(self) -> str:
        line = self.held.line() if self.held is not None else "已清仓"
        if self.dividend_tax:
            line += f"，按持有期扣股息红利税 {self.dividend_tax:,.2f}"
        return line

    def notice(self) -> str:
        d = self.decision
        return (
            f"已记录 #{self.ref}：{d.decided_at[:10] + ' ' if self.backdated else ''}{side_name(d.side)} {d.symbol} {d.quantity:g} 股 @ {d.price:g}，"
            f"{self.holding_line()}；{self.fee_words()}（/forget {self.ref} 可撤销并恢复持仓）"
        )

    def fee_words(self) -> str:
        return f"费用 {self.fee:.2f} 元{'（估算，导入对账单后以实际为准）' if self.fee_estimated else ''}"


def trade_key(trade: NewTrade, now: datetime) -> tuple:
    """What makes two statements of a trade the same trade: its stock, side, shares, price and
    day (as resolved); the reason, the name, the fee and what was left unstated are not."""
    return (
        trade.symbol,
        trade.side,
        Decimal(repr(float(trade.quantity))).normalize(),
        Decimal(repr(float(trade.price))).normalize(),
        trade_day(trade.day, now),
    )


def _decided_at(day: date, at: str) -> str:
    """When the trade happened: now for today, the day's start for an earlier day."""
    return at if day == datetime.fromisoformat(at).date() else f"{day.isoformat()}T00:00:00{at[19:] or '+08:00'}"


def _sized(trade: NewTrade) -> bool:
    """A whole, finite number of shares to check (_check_values refused a fraction; the store
    refuses what is not a number)."""
    return is_finite_number(trade.quantity) and float(trade.quantity) == int(trade.quantity)


def _check_buy_size(trade: NewTrade, day: date) -> None:
    size = order_size(trade.symbol, day.isoformat())
    if trade.side == "buy" and _sized(trade) and not fits_order(int(trade.quantity), size):
        raise RequestError(f"不能买入 {float(trade.quantity):g} 股 {trade.symbol}：{order_rule(trade.symbol, size)}")


def _bought_on(account: Account, symbol: str, day: date) -> Decimal:
    fills = account.store.fills(symbol, on=day.isoformat())
    return sum((Decimal(repr(f.quantity)) for f in fills if f.kind == "buy"), Decimal(0))


def _check_sell(account: Account, trade: NewTrade, now: datetime, day: date, position: Position | None) -> None:
    """Shares held (`position`, derived under the write lock), T+1 (a day's buys are not sold
    that day) and the sell's size: whole orders, or the holding's odd part sold at once."""
    if trade.side != "sell" or not _sized(trade):
        return
    shares = int(trade.quantity)
    held = position.shares if position is not None else Decimal(0)
    if shares > held:
        raise RequestError(f"卖出数量 {shares} 超过持仓 {float(held):g} 股")
    p = derive_positions(account, now, [trade.symbol], day.isoformat()).get(trade.symbol)
    at_day, bought = (p.shares if p is not None else Decimal(0)), _bought_on(account, trade.symbol, day)
    if bought and shares > at_day - bought:
        raise RequestError(
            f"T+1：{day.isoformat()} 买入的 {float(bought):g} 股当天不能卖出，"
            f"当天只能卖出此前持有的 {float(max(at_day - bought, Decimal(0))):g} 股"
        )
    size = order_size(trade.symbol, day.isoformat())
    if not sellable_size(shares, int(at_day), size):
        raise RequestError(
            f"不能卖出 {shares} 股 {trade.symbol}：{order_rule(trade.symbol, size)}，"
            f"不足一笔的零股须一次全部卖出（现有零股 {odd_part(int(at_day), size)} 股）"
        )


def _check_values(trade: NewTrade) -> None:
    """The checks a statement's trade passes: one told one at a time is no more believable."""
    price, quantity, fee = trade.price, trade.quantity, trade.fee or 0.0
    if not all(is_finite_number(v) for v in (price, quantity, fee)) or fee < 0:
        return  # not a price, a size or a fee at all: the store says so
    values = dict(quantity=float(quantity), price=float(price), amount=float(price) * float(quantity), fees=float(fee))
    for _, problem in fill_problems(moves_shares=True, **values):
        raise RequestError(f"不能记录这笔交易：{problem}")


def _fee(trade: NewTrade, day: date, commission: Commission) -> tuple[float, bool]:
    """The user's fee, else the account's rates on the day (estimated)."""
    if trade.fee is not None:
        return float(trade.fee), False
    amount = float(trade.price) * float(trade.quantity)
    cost = trade_cost(amount, day.isoformat(), trade.side == "sell", commission, trade.symbol, float(trade.quantity))
    return round(cost.total, 2), True


def record_trade(
    account: Account, trade: NewTrade, at: str, commission: Commission | None = None, broker_account: str | None = None
) -> RecordedTrade:
    """The trade in the ledger of `broker_account` (or of the books' own account); with no
    account named, in the default one (a home of one account: its only one). Its shares,
    cost and T+1 are that account's; the holding row is every account's line of the stock."""
    if trade.side not in SIDES:
        raise RequestError(f"买卖方向只能是 {' / '.join(SIDES)}，而不是 {trade.side!r}")
    _check_values(trade)
    now = datetime.fromisoformat(at)
    day = trade_day(trade.day, now)
    decided_at = _decided_at(day, at)
    if is_finite_number(trade.price) and (
        problem := trade_price_refusal(account, trade.symbol, day.isoformat(), float(trade.price))
    ):
        raise RequestError(f"不能记录这笔交易：{problem}")
    fee, estimated = _fee(trade, day, commission or Commission())
    whole = account.whole
    if broker_account is None and account.broker_account is None and account.several():
        broker_account = account.default_account()
    account = account.narrowed(broker_account)
    try:
        _check_buy_size(trade, day)
        with write_transaction(account.db):
            # the stock's position is derived once before the write and once after, under the
            # lock: an unreadable stored row refuses the trade here (a write must not build on a
            # guess), and the sale is checked and its dividend tax found against this one
            before = derive_positions(account, now, [trade.symbol]).get(trade.symbol)
            _check_sell(account, trade, now, day, before)
            decision = account.portfolio.record_trade(
                symbol=trade.symbol,
                side=trade.side,
                price=float(trade.price),
                quantity=float(trade.quantity),
                reason=trade.reason,
                at=at,
                source=trade.source,
                fee=fee,
                decided_at=decided_at,
                name=trade.name,
                fee_estimated=estimated,
            )
            after = derive_positions(account, now, [trade.symbol]).get(trade.symbol)
            line = after if account is whole else derive_positions(whole, now, [trade.symbol]).get(trade.symbol)
            holding = sync_holding_to(whole, trade.symbol, at, line)
    except ValueError as exc:  # e.g. a price that is not a number: nothing was written
        raise RequestError(str(exc)) from None
    held = Held(after.shares, after.cost(account.cost_method)) if after is not None else Held(Decimal(0), None)
    tax = _taxes_on(after, trade, day.isoformat()) - _taxes_on(before, trade, day.isoformat())
    return RecordedTrade(decision, holding, decided_at != at, held, tax, fee, estimated)


def _taxes_on(p: Position | None, trade: NewTrade, day: str) -> Decimal:
    """The dividend tax the ledger takes on a sale's day (a statement row would replace it);
    the sale's own is the difference it makes, another sale that day having taken its part."""
    if p is None or trade.side != "sell":
        return Decimal(0)
    return sum((t.amount for t in p.taxes if t.day == day), Decimal(0))


def _opening(account: Account, symbol: str | None, now: datetime) -> Decimal:
    """Around any unreadable row (before and after the undo alike): undoing the trade that
    row is must stay possible, it is how the row is mended."""
    p = derive_positions(account, now, [symbol], skipped=[]).get(symbol) if symbol else None
    return p.opening_shares if p is not None else Decimal(0)


def undo_trade(account: Account, decision_id: int, at: str) -> UndoneTrade | None:
    """The trade's fill leaves the ledger and the holding follows; None when there is no such trade."""
    now = datetime.fromisoformat(at)
    try:
        with write_transaction(account.db):
            row = account.home.investor.decision(decision_id)
            before = _opening(account, row.symbol if row else None, now)
            undone = account.portfolio.undo_trade(decision_id, at)
            if undone is None:
                return None
            if _opening(account, undone.decision.symbol, now) > before:
                # without the buy, a later sale sells shares the ledger never had
                raise RequestError("无法撤销这笔买入：之后卖出的股数多于其余买入（之后有卖出，请先撤销那笔卖出）")
            holding = sync_holding(account, undone.decision.symbol, now, at)
            held = held_position(account, undone.decision.symbol, now, skipped=[])
            return replace(undone, holding=holding, held=held)
    except ValueError as exc:
        raise RequestError(str(exc)) from None
