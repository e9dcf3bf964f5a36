"""The account valued: every position at its last real (unadjusted) close, or at its cost
when no bar is stored, the cash the ledger leaves, weights of total assets. One result that
every reader of the account shows (the CLI, the REPL, the context block, the brief, the
tools, the evals); figures are `Decimal` and rounded only for display."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from pixiu_cli.account.ledger import ZERO, CashFlows, Position, dec
from pixiu_cli.account.model import CashBalance
from pixiu_cli.home.model import Holding
from pixiu_cli.kernel.store.rows import SkippedRow


@dataclass(frozen=True)
class Close:
    day: str
    price: Decimal
    stale_days: int | None = None  # trading sessions closed since (0 = current)
    stale_at_least: bool = False  # counted only up to the trading calendar's last day


@dataclass(frozen=True)
class ValuedPosition:
    position: Position
    cost: Decimal  # per share, by the account's cost method
    close: Close | None  # None: no bar stored, valued at cost
    value: Decimal
    weight: Decimal  # of total assets when the cash is known, else of the stocks

    @property
    def symbol(self) -> str:
        return self.position.symbol

    @property
    def shares(self) -> Decimal:
        return self.position.shares

    @property
    def priced(self) -> bool:
        return self.close is not None

    @property
    def unrealised_pnl(self) -> Decimal | None:
        """Against the average cost: what the shares still held have gained; None with no
        close (valued at cost, there is no gain to tell, not one of minus the realised part)."""
        return self.value - self.position.basis if self.priced else None

    @property
    def realised_pnl(self) -> Decimal:
        return self.position.realised_pnl

    @property
    def holding_pnl(self) -> Decimal | None:
        """The broker's 持仓盈亏, against the diluted cost: includes what was realised since the
        position last opened; None with no close."""
        return self.value - self.position.invested if self.priced else None

    @property
    def total_pnl(self) -> Decimal | None:
        """unrealised + realised = value + proceeds − cost; None with no close."""
        unrealised = self.unrealised_pnl
        return None if unrealised is None else unrealised + self.realised_pnl

    @property
    def unrealised_pct(self) -> Decimal | None:
        unrealised, basis = self.unrealised_pnl, self.position.basis
        return unrealised / basis if unrealised is not None and basis > 0 else None


@dataclass(frozen=True)
class AccountCash:
    amount: Decimal
    as_of: str  # the stated balance's day, or the last flow rolled onto it
    stated: CashBalance  # the balance it starts from
    rolled: int  # later fills and dividends counted onto it
    missing: int  # later fills whose cash effect is unknown: not included

    @property
    def complete(self) -> bool:
        return self.missing == 0


@dataclass(frozen=True)
class Concentration:
    largest_symbol: str
    largest_weight: Decimal
    top3_weight: Decimal
    hhi: Decimal  # Σ w² over the stocks' shares of the stock value


@dataclass(frozen=True)
class Account:
    holdings: tuple[ValuedPosition, ...]  # largest first
    closed: tuple[Position, ...]  # stocks the ledger sold out of
    cash: AccountCash | None
    cost_method: str

    @property
    def stock_value(self) -> Decimal:
        return sum((h.value for h in self.holdings), ZERO)

    @property
    def total_assets(self) -> Decimal | None:
        return None if self.cash is None else self.stock_value + self.cash.amount

    @property
    def unpriced(self) -> int:
        return sum(not h.priced for h in self.holdings)

    @property
    def realised_pnl(self) -> Decimal:
        return sum((h.realised_pnl for h in self.holdings), ZERO) + sum((p.realised_pnl for p in self.closed), ZERO)

    @property
    def unrealised_pnl(self) -> Decimal | None:
        """Over the priced holdings only (`unpriced` says how many it leaves out); None when
        there are holdings and none of them is priced."""
        priced = [h.unrealised_pnl for h in self.holdings if h.unrealised_pnl is not None]
        return None if self.holdings and not priced else sum(priced, ZERO)

    def holding(self, symbol: str) -> ValuedPosition | None:
        return next((h for h in self.holdings if h.symbol == symbol), None)

    @property
    def concentration(self) -> Concentration | None:
        stocks = self.stock_value
        if not self.holdings or stocks <= 0:
            return None
        ranked = sorted(self.holdings, key=lambda h: h.value, reverse=True)
        return Concentration(
            ranked[0].symbol,
            ranked[0].weight,
            sum((h.weight for h in ranked[:3]), ZERO),
            sum(((h.value / stocks) ** 2 for h in ranked), ZERO),
        )


@dataclass(frozen=True)
class AccountView:
    """The one valued account every surface shows, with what it needs to show it: each
    holding's name (the security master's) and role, and the holdings as the context engine
    ranks them (shares and cost as derived)."""

    account: Account
    names: dict[str, str]
    roles: dict[str, str]
    holdings: tuple[Holding, ...]  # the held positions as Holding rows, largest first
    skipped: tuple[SkippedRow, ...] = ()  # stored rows left out of every figure: unreadable
    accounts: tuple[tuple[str, AccountCash | None], ...] = ()  # each broker account's name and cash
    broker_account: str | None = None  # the one account it shows (None: every account, combined)

    def name(self, symbol: str) -> str:
        return self.names.get(symbol) or symbol


def account_cash(stated: CashBalance | None, flows: CashFlows | None) -> AccountCash | None:
    if stated is None:
        return None
    if flows is None or not flows.rolled:
        return AccountCash(dec(stated.amount), stated.as_of, stated, 0, flows.missing if flows else 0)
    as_of = max(stated.as_of, flows.last_day or stated.as_of)
    return AccountCash(dec(stated.amount) + flows.moved, as_of, stated, flows.rolled, flows.missing)


def combined_cash(parts: Sequence[AccountCash | None]) -> AccountCash | None:
    """The cash of several accounts: the sum of those whose balance is known (None when none
    is); its day the latest of theirs, its stated balance the sum of their stated ones."""
    known = [c for c in parts if c is not None]
    if len(known) <= 1:
        return known[0] if known else None
    sources = {c.stated.source for c in known}
    stated = CashBalance(
        float(sum((dec(c.stated.amount) for c in known), ZERO)),
        max(c.stated.as_of for c in known),
        sources.pop() if len(sources) == 1 else "statement",
    )
    return AccountCash(
        sum((c.amount for c in known), ZERO),
        max(c.as_of for c in known),
        stated,
        sum(c.rolled for c in known),
        sum(c.missing for c in known),
    )


def value_account(
    positions: Mapping[str, Position], closes: Mapping[str, Close], cash: AccountCash | None, cost_method: str
) -> Account:
    """Every held position valued (at its close, or at its cost by the method when no bar
    is stored); weights of total assets when the cash is known, else of the stocks."""
    held = [p for p in positions.values() if p.held]
    values = []
    for p in held:
        cost = p.cost(cost_method)
        close = closes.get(p.symbol)
        values.append((p, cost, close, p.shares * close.price if close else p.shares * cost))
    base = sum((v for *_, v in values), ZERO) + (cash.amount if cash else ZERO)
    valued = [ValuedPosition(p, cost, close, v, v / base if base > 0 else ZERO) for p, cost, close, v in values]
    valued.sort(key=lambda h: (-h.value, h.symbol))
    # a stock with no money in or out yet (new shares paid for, not yet credited) was never held
    closed = tuple(p for _, p in sorted(positions.items()) if not p.held and (p.cost_in or p.proceeds or p.fees))
    return Account(tuple(valued), closed, cash, cost_method)


def applied_dividends(positions: Sequence[Position]) -> list[tuple[str, Decimal]]:
    """The dividends the ledger applied from market data (not booked by a statement), and the
    dividend tax it took on them at a sale: cash too."""
    paid = [(a.ex_date, a.cash) for p in positions for a in p.actions if a.cash]
    return paid + [(t.day, -t.amount) for p in positions for t in p.taxes]
