"""What follows the bars: profiles, signals, alerts and the decisions' track record are
recomputed when bars arrive (import, sync) or on request (`pixiu profile --refresh`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.market.analytics.model import BacktestRow
from pixiu_cli.market.bars import benchmark_for

if TYPE_CHECKING:  # the engine loads numpy: imported by the functions that compute
    from pixiu_cli.market.analytics.costs import CostModel
    from pixiu_cli.market.analytics.refresh import RefreshSummary, TrackRecord
    from pixiu_cli.market.handle import Market


def refresh(market: Market, symbols: Sequence[str], now: datetime, costs: CostModel | None) -> RefreshSummary:
    """Recompute what depends on these symbols' bars. An index gets no profile, signal or
    alert of its own: it is what stocks are measured against (read when they are shown)."""
    from pixiu_cli.market.analytics.refresh import refresh as recompute

    return recompute(market, [s for s in symbols if not benchmark_for(s)], now, costs)


def held_and_watched(market: Market) -> list[str]:
    """The holdings and the watch list: what sync, profile and the rest work on by default."""
    return sorted({h.symbol for h in market.investor.holdings()} | {s for s, _ in market.bars.watchlist()})


@dataclass(frozen=True)
class ProfileListing:
    refreshed: list[str]  # the summary lines of the recomputation, when one was needed
    rows: list[BacktestRow]
    # each row's annual return minus 沪深300's over the same window (None where its bars do not
    # cover the window); empty when no 沪深300 bars are stored
    vs_csi300: list[float | None] = field(default_factory=list)


def profiles(
    market: Market, symbols: list[str] | None, now: datetime, costs: CostModel | None, again: bool
) -> ProfileListing:
    """The backtest rows of `symbols` (by default the holdings and watch list that have bars),
    recomputing the ones older than their bars (all of them with `again`)."""
    bars, asked = market.bars, symbols or held_and_watched(market)
    newest = {s: bars.last_date(s) for s in asked}  # one probe each: never every stored series' extent
    with_bars = {s: last for s, last in newest.items() if last}
    wanted = symbols if symbols else [s for s in asked if s in with_bars]
    missing = [s for s in wanted if s not in with_bars]
    if missing:
        raise RequestError(f"没有 {'、'.join(missing)} 的日线：先 pixiu data import 或 pixiu data sync")
    if not wanted:
        raise RequestError("没有可计算的股票：先导入持仓和日线（pixiu data import FILE.csv --symbol CODE）")
    store = market.analytics
    stored = {r.symbol: r.window_end for r in store.backtests(wanted)}
    stale = [s for s in wanted if again or s not in stored or stored[s] < with_bars[s]]
    lines = refresh(market, stale, now, costs).lines() if stale else []
    rows = store.backtests(wanted)
    return ProfileListing(lines, rows, _vs_csi300(market, rows))


def _vs_csi300(market: Market, rows: list[BacktestRow]) -> list[float | None]:
    from pixiu_cli.market.analytics.metrics import BenchmarkCloses
    from pixiu_cli.market.data import MarketData

    index = BenchmarkCloses(MarketData(market))
    if not index:
        return []
    out = []
    for r in rows:
        index_return = index.annual_return(r.window_start, r.window_end)
        out.append(None if index_return is None else r.annual_return - index_return)
    return out


def track(market: Market, now: datetime) -> TrackRecord:
    from pixiu_cli.market.analytics.refresh import track_record

    return track_record(market, now)
