"""Holdings valuation on real (unadjusted) prices: the user's cost is in real yuan, so the
last real close is compared with it, using the share count after any bonus / transferred
shares since the holding was recorded and counting the cash dividends paid out meanwhile.

Every holding is in the portfolio: one without bars is valued at its cost and marked
(priced False), so weights and concentration never come from a partial view. With the cash
balance known, weights are shares of total assets (stocks + cash)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from pixiu_cli.domain.account import CashBalance
from pixiu_cli.domain.codes import is_finite_number
from pixiu_cli.domain.investor import Holding
from pixiu_cli.domain.market import CorporateAction
from pixiu_cli.market.calendar import TradingCalendar, last_complete_session
from pixiu_cli.store.market import MarketStore


@dataclass(frozen=True)
class HoldingValue:
    symbol: str
    as_of: str | None  # date of the close used; None when unpriced
    last_close: float | None  # None when unpriced
    shares: float  # after bonus shares since the holding was recorded
    recorded_shares: float
    cash_received: float  # dividends paid on the holding since it was recorded (pre-tax)
    market_value: float
    cost_basis: float  # recorded shares × cost
    pnl: float  # market value + cash received − cost basis
    pnl_pct: float | None
    weight: float  # share of total assets (cash included) when the cash is known, else of the stocks
    stale_days: int | None  # trading sessions since as_of (0 = current)
    priced: bool = True  # False: no bars, valued at cost (pnl 0, unknown)


@dataclass(frozen=True)
class Concentration:
    largest_symbol: str
    largest_weight: float
    top3_weight: float
    hhi: float  # Σ w² over the stocks' shares of the stock value; 1/hhi ≈ equally weighted positions


@dataclass(frozen=True)
class PortfolioValue:
    holdings: dict[str, HoldingValue]
    total_value: float  # every holding: at its close, or at cost when unpriced
    concentration: Concentration | None
    cash: CashBalance | None = None
    unpriced: int = 0  # holdings valued at cost for want of bars
    cost_label: str | None = None  # the cost a holding the account's fills explain shows (摊薄成本)

    @property
    def total_assets(self) -> float:
        return self.total_value + (self.cash.amount if self.cash else 0.0)


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


def _at_cost(h: Holding) -> HoldingValue | None:
    """A holding without bars, valued at its cost; None when shares or cost are unknown."""
    if not (is_finite_number(h.shares) and is_finite_number(h.cost)) or h.shares <= 0 or h.cost <= 0:
        return None
    basis = h.shares * h.cost
    return HoldingValue(h.symbol, None, None, h.shares, h.shares, 0.0, basis, basis, 0.0, None, 0.0, None, False)


def _concentration(values: list[HoldingValue], stocks: float) -> Concentration | None:
    if not values or stocks <= 0:
        return None
    ranked = sorted(values, key=lambda v: v.weight, reverse=True)
    return Concentration(
        ranked[0].symbol,
        ranked[0].weight,
        sum(v.weight for v in ranked[:3]),
        sum((v.market_value / stocks) ** 2 for v in ranked),
    )


def value_portfolio(
    market: MarketStore, holdings: Sequence[Holding], now: datetime, cash: CashBalance | None = None
) -> PortfolioValue:
    """Values every holding: at the last stored close, or at cost when it has no bars.
    Nothing is said (an empty value) when no holding has bars and the cash is unknown."""
    symbols = [h.symbol for h in holdings]
    closes = market.last_closes(symbols)
    if not closes and cash is None:
        return PortfolioValue({}, 0.0, None)
    actions = market.actions_for(list(closes)) if closes else {}
    calendar = TradingCalendar(market)
    values = [_value(h, closes[h.symbol], actions[h.symbol]) if h.symbol in closes else _at_cost(h) for h in holdings]
    values = [v for v in values if v is not None]
    total = sum(v.market_value for v in values)
    base = total + (cash.amount if cash else 0.0)
    stale: dict[str, int | None] = {}  # holdings mostly share their last bar's date
    weighted = {}
    for v in values:
        if v.priced and v.as_of not in stale:
            stale[v.as_of] = calendar.stale_days(v.as_of, now)
        weighted[v.symbol] = replace(
            v, weight=v.market_value / base if base > 0 else 0.0, stale_days=stale.get(v.as_of) if v.priced else None
        )
    unpriced = sum(not v.priced for v in values)
    return PortfolioValue(weighted, total, _concentration(list(weighted.values()), total), cash, unpriced)


class CachedValuer:
    """value_portfolio for the context block, recomputed only when the holdings, the stored
    market data (its version counter) or the last closed session change — not every turn."""

    def __init__(
        self, market: MarketStore, cash: Callable[[], CashBalance | None] | None = None, cost_label: str | None = None
    ):
        self.market = market
        self.cash = cash or (lambda: None)
        self.cost_label = cost_label
        self._key: tuple | None = None
        self._value: PortfolioValue | None = None

    def __call__(self, holdings: Sequence[Holding], now: datetime) -> PortfolioValue:
        cash = self.cash()
        key = (self.market.version(), tuple(holdings), last_complete_session(now), cash)
        if key != self._key:
            self._value = replace(value_portfolio(self.market, holdings, now, cash), cost_label=self.cost_label)
            self._key = key
        return self._value
