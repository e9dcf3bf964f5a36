"""The investor's account as one view: every holding with its shares, cost, last close,
value, P&L and weight over total assets (cash included), the cash, and the fills behind
them. `holdings_view` is what `pixiu holdings`, `/holdings` and any other reader of the
account (the daily brief) call."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime

from pixiu_cli.domain.account import COST_METHODS, KIND_NAMES, CashBalance, Fill, Position
from pixiu_cli.domain.dates import DateWordsError, parse_date_words
from pixiu_cli.domain.investor import Holding
from pixiu_cli.domain.ledger import positions
from pixiu_cli.services.errors import RequestError
from pixiu_cli.store.account import AccountStore
from pixiu_cli.store.database import write_transaction
from pixiu_cli.store.domain import DomainStore
from pixiu_cli.store.memory import decision_ref


@dataclass(frozen=True)
class HoldingLine:
    symbol: str
    name: str
    role: str
    shares: float
    cost: float | None  # by the cost method of the view
    diluted_cost: float | None  # from the fills, when they explain the holding
    average_cost: float | None
    last_close: float | None
    close_date: str | None
    priced: bool  # False: no bars, valued at cost
    value: float
    pnl: float | None  # unrealised (None when unpriced)
    pnl_pct: float | None
    realised_pnl: float | None  # from the fills (None when they do not explain the holding)
    fees: float | None
    dividends: float | None
    weight: float  # of total assets when the cash is known, else of the stocks
    as_of: str | None  # the holding's own date


@dataclass(frozen=True)
class HoldingsView:
    lines: tuple[HoldingLine, ...]  # largest first
    cash: CashBalance | None
    stock_value: float
    total_assets: float | None  # None while the cash is unknown
    unpriced: int
    cost_method: str
    closed: tuple[Position, ...]  # stocks the fills sold out of, with their realised P&L

    @property
    def realised_pnl(self) -> float:
        return round(sum(line.realised_pnl or 0.0 for line in self.lines) + sum(p.realised_pnl for p in self.closed), 2)


def check_cost_method(method: str) -> str:
    if method not in COST_METHODS:
        raise RequestError(f"成本算法只能是 {' / '.join(COST_METHODS)}，而不是 {method!r}")
    return method


def _explained(h: Holding, p: Position | None) -> bool:
    """The fills add up to exactly the holding's shares: their costs and P&L describe it."""
    return p is not None and h.shares is not None and math.isclose(p.shares, h.shares, abs_tol=1e-6)


def _line(h: Holding, v, p: Position | None, method: str) -> HoldingLine:
    explained = _explained(h, p)
    cost = h.cost
    if explained:
        chosen = p.cost(method)
        cost = chosen if chosen is not None and chosen > 0 else p.average_cost
    priced = v is not None and v.priced
    pnl = pct = None
    if priced and cost is not None:
        basis = h.shares * cost
        pnl = round(v.market_value + v.cash_received - basis, 2)
        pct = pnl / basis if basis else None
    return HoldingLine(
        h.symbol,
        h.name,
        h.role,
        v.shares if v is not None else h.shares,
        cost,
        p.diluted_cost if explained else None,
        p.average_cost if explained else None,
        v.last_close if priced else None,
        v.as_of if priced else None,
        priced,
        v.market_value if v is not None else 0.0,
        pnl,
        pct,
        p.realised_pnl if explained else None,
        p.fees if explained else None,
        p.dividends if explained else None,
        v.weight if v is not None else 0.0,
        h.updated_at[:10] if h.updated_at else None,
    )


def holdings_view(db, now: datetime, cost_method: str = "diluted") -> HoldingsView:
    from pixiu_cli.market.valuation import value_portfolio
    from pixiu_cli.store.market import MarketStore

    method = check_cost_method(cost_method)
    store = AccountStore(db)
    holdings = DomainStore(db).holdings()
    cash = store.current_cash()
    valued = value_portfolio(MarketStore(db), holdings, now, cash) if holdings or cash else None
    derived = positions(store.fills())
    values = valued.holdings if valued else {}
    lines = sorted(
        (_line(h, values.get(h.symbol), derived.get(h.symbol), method) for h in holdings), key=lambda line: -line.value
    )
    held = {h.symbol for h in holdings}
    closed = tuple(p for s, p in sorted(derived.items()) if s not in held and p.shares == 0)
    stock_value = valued.total_value if valued else 0.0
    total = valued.total_assets if valued and cash else None
    return HoldingsView(tuple(lines), cash, stock_value, total, valued.unpriced if valued else 0, method, closed)


# cash -------------------------------------------------------------------------------------
def trade_day(words: str | None, now: datetime) -> date:
    """The day the user named (今天 / 昨天 / 3月3日 / 2025-03-03), never after today."""
    today = now.date()
    if words is None or not words.strip():
        return today
    try:
        return parse_date_words(words, today)
    except DateWordsError as exc:
        raise RequestError(str(exc)) from None


def set_cash(db, amount: float, day_words: str | None, now: datetime) -> CashBalance:
    if not (isinstance(amount, int | float) and math.isfinite(amount) and amount >= 0):
        raise RequestError(f"现金余额应为非负数字，而不是 {amount!r}")
    cash = CashBalance(round(float(amount), 2), trade_day(day_words, now).isoformat(), "user")
    with write_transaction(db):
        AccountStore(db).set_cash(cash, now.isoformat(timespec="seconds"))
    return cash


# fills ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TradeLine:
    day: str
    time: str | None
    kind: str  # 买入 / 卖出 / 红股入账 …
    symbol: str | None
    name: str | None
    quantity: float
    price: float
    amount: float
    fees: float
    balance: float | None
    origin: str  # 对账单 | 手工
    ref: str | None  # d5: the trade's memory id, for /forget


def list_trades(db, symbol: str | None = None) -> list[TradeLine]:
    return [_trade_line(f) for f in AccountStore(db).fills(symbol)]


def _trade_line(f: Fill) -> TradeLine:
    return TradeLine(
        f.day,
        f.time,
        KIND_NAMES.get(f.kind, f.kind),
        f.symbol,
        f.name,
        f.quantity,
        f.price,
        f.amount,
        f.fees,
        f.balance,
        "对账单" if f.origin == "statement" else "手工",
        decision_ref(f.decision_id) if f.decision_id else None,
    )
