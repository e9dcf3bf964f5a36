"""The holdings as the brief (and anything else that needs them valued) reads them: one
function, so the account's own holdings and cash can take its place without touching the
callers."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pixiu_cli.domain.investor import Holding
from pixiu_cli.market.valuation import PortfolioValue, value_portfolio
from pixiu_cli.store.domain import DomainStore
from pixiu_cli.store.market import MarketStore


@dataclass(frozen=True)
class HoldingsNow:
    holdings: list[Holding]
    valuation: PortfolioValue  # the holdings with stored bars, on real prices
    cash: float | None = None  # None: not known (the holdings store keeps no cash)


def holdings_now(db, now: datetime) -> HoldingsNow:
    holdings = DomainStore(db).holdings()
    return HoldingsNow(holdings, value_portfolio(MarketStore(db), holdings, now))
