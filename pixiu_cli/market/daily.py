"""Daily data without effort: after the close of a trading day, which of the series a default
sync keeps (holdings, watch list, index benchmarks) are a session or more behind, so the
REPL can offer the sync (or run it, with `[market] auto_sync`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from pixiu_cli.kernel.db.stores import stores_of
from pixiu_cli.market.calendar import MARKET_CLOSE, TradingCalendar
from pixiu_cli.market.service import sync_targets
from pixiu_cli.market.trading_days import as_shanghai, is_trading_day, knows

if TYPE_CHECKING:
    from sqlite_utils import Database


@dataclass(frozen=True)
class StaleMarket:
    session: str  # today's session, closed: what the data should reach
    symbols: tuple[str, ...]  # the stored series behind it
    behind: int  # the most sessions any of them is behind


def after_close(now: datetime) -> bool:
    """Past 15:00 Beijing time on a day the calendar knows is a trading day."""
    local = as_shanghai(now)
    return knows(local.date()) and is_trading_day(local.date()) and local.time() >= MARKET_CLOSE


def stale_market(db: Database, now: datetime) -> StaleMarket | None:
    """None before the close, on a day without a session, past the calendar's end, or when
    every stored series of the default sync has today's bar. Series never stored are left
    out: a user who keeps no market data is not asked to sync every day."""
    if not after_close(now):
        return None
    market = stores_of(db).market
    calendar = TradingCalendar(market)
    behind = {}
    for info in market.series(sync_targets(db, None)):
        days = calendar.stale_days(info.last, now)
        if days:  # None: nothing stored
            behind[info.symbol] = days
    if not behind:
        return None
    return StaleMarket(as_shanghai(now).date().isoformat(), tuple(behind), max(behind.values()))
