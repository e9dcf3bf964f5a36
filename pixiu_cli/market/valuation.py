"""Holdings valuation on real (unadjusted) prices: the user's cost is in real yuan, so the
last real close is compared with it, using the share count after any bonus / transferred
shares since the holding was recorded and counting the cash dividends paid out meanwhile."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from pixiu_cli.domain.investor import Holding
from pixiu_cli.domain.market import CorporateAction
from pixiu_cli.market.calendar import TradingCalendar, last_complete_session
from pixiu_cli.store.market import MarketStore


@dataclass(frozen=True)
class HoldingValue:
    symbol: str
    as_of: str  # date of the close used
    last_close: float
    shares: float  # after bonus shares since the holding was recorded
    recorded_shares: float
    cash_received: float  # dividends paid on the holding since it was recorded (pre-tax)
    market_value: float
    cost_basis: float  # recorded shares × cost
    pnl: float  # market value + cash received − cost basis
    pnl_pct: float | None
    weight: float  # share of the valued portfolio's market value
    stale_days: int | None  # trading sessions since as_of (0 = current)


@dataclass(frozen=True)
class Concentration:
    largest_symbol: str
    largest_weight: float
    top3_weight: float
    hhi: float  # Σ weight², 1/hhi ≈ the number of equally weighted positions


@dataclass(frozen=True)
class PortfolioValue:
    holdings: dict[str, HoldingValue]
    total_value: float
    concentration: Concentration | None


def shares_after_actions(
    shares: float, since: str, until: str, actions: Sequence[CorporateAction]
) -> tuple[float, float]:
    """(shares now, cash received) for `shares` held from `since` through `until`: every
    event with since < ex_date ≤ until pays cash on, and adds shares to, what was held."""
    cash = 0.0
    seen: set[str] = set()
    for a in sorted(actions, key=lambda a: a.ex_date):
        if a.method != "cash_shares" or a.ex_date in seen or not (since < a.ex_date <= until):
            continue
        seen.add(a.ex_date)
        cash += shares * a.cash_per_share
        shares = shares * (1 + a.shares_per_share)
    return shares, cash


def _value(h: Holding, close: tuple[str, float], actions: Sequence[CorporateAction]) -> HoldingValue:
    as_of, price = close
    # The recorded share count is as of the holding's last update; with no date it is
    # taken to be current, so no later bonus shares are assumed.
    since = h.updated_at[:10] if h.updated_at else as_of
    shares, cash = shares_after_actions(h.shares, since, as_of, actions)
    basis = h.shares * h.cost
    value = shares * price
    pnl = value + cash - basis
    return HoldingValue(
        h.symbol, as_of, price, shares, h.shares, cash, value, basis, pnl, pnl / basis if basis else None, 0.0, None
    )


def value_portfolio(market: MarketStore, holdings: Sequence[Holding], now: datetime) -> PortfolioValue:
    """Values the holdings that have stored bars; the rest are simply absent."""
    symbols = [h.symbol for h in holdings]
    closes = market.last_closes(symbols)
    if not closes:
        return PortfolioValue({}, 0.0, None)
    actions = market.actions_for(list(closes))
    calendar = TradingCalendar(market)
    values = [_value(h, closes[h.symbol], actions[h.symbol]) for h in holdings if h.symbol in closes]
    total = sum(v.market_value for v in values)
    stale: dict[str, int | None] = {}  # holdings mostly share their last bar's date
    weighted = {}
    for v in values:
        if v.as_of not in stale:
            stale[v.as_of] = calendar.stale_days(v.as_of, now)
        weighted[v.symbol] = replace(v, weight=v.market_value / total if total else 0.0, stale_days=stale[v.as_of])
    ranked = sorted(weighted.values(), key=lambda v: v.weight, reverse=True)
    concentration = (
        Concentration(
            ranked[0].symbol, ranked[0].weight, sum(v.weight for v in ranked[:3]), sum(v.weight**2 for v in ranked)
        )
        if total
        else None
    )
    return PortfolioValue(weighted, total, concentration)


class CachedValuer:
    """value_portfolio for the context block, recomputed only when the holdings, the stored
    market data (its version counter) or the last closed session change — not every turn."""

    def __init__(self, market: MarketStore):
        self.market = market
        self._key: tuple | None = None
        self._value: PortfolioValue | None = None

    def __call__(self, holdings: Sequence[Holding], now: datetime) -> PortfolioValue:
        key = (self.market.version(), tuple(holdings), last_complete_session(now))
        if key != self._key:
            self._value = value_portfolio(self.market, holdings, now)
            self._key = key
        return self._value
