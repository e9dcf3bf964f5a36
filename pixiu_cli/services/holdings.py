"""The holdings as the brief (and anything else that needs them valued) reads them: one
function, so the account's own holdings and cash can take its place without touching the
callers."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pixiu_cli.domain.investor import Holding
from pixiu_cli.market.valuation import PortfolioValue, value_portfolio
from pixiu_cli.store.account import AccountStore
from pixiu_cli.store.domain import DomainStore
from pixiu_cli.store.market import MarketStore


@dataclass(frozen=True)
class HoldingsNow:
    holdings: list[Holding]
    valuation: PortfolioValue  # every holding: on real prices, or at cost (priced False) without bars
    cash: float | None = None  # None: not known


def holdings_now(db, now: datetime) -> HoldingsNow:
    """The holdings, valued with the account's cash (a statement's 资金余额 or `pixiu cash
    set`, moved by the trades told since) when it is known."""
    holdings = DomainStore(db).holdings()
    cash = AccountStore(db).current_cash()
    valuation = value_portfolio(MarketStore(db), holdings, now, cash)
    return HoldingsNow(holdings, valuation, cash.amount if cash else None)
