"""Market data: import a CSV, sync from a network source, the status of every series, the
bars and actions of one stock, the watch list and the chart (`pixiu data|watch|chart`,
`/chart`). Imports and syncs recompute what depends on the bars they wrote.

Daily data without effort: after the close of a trading day, which of the series a default
sync keeps (holdings, watch list, index benchmarks) are a session or more behind, so the
REPL can offer the sync (or run it, with `[market] auto_sync`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.market.analytics.service import held_and_watched, refresh
from pixiu_cli.market.bars import BENCHMARKS
from pixiu_cli.market.calendar import TradingCalendar
from pixiu_cli.market.csv_source import CsvImportError
from pixiu_cli.market.data import MarketData
from pixiu_cli.market.fundamentals.service import refresh_kept
from pixiu_cli.market.importer import BareCode, ImportSymbol, import_csv, import_symbol, spelling_in_name
from pixiu_cli.market.security_master import refresh_master
from pixiu_cli.market.source_by_name import open_source
from pixiu_cli.market.sources import SourceError
from pixiu_cli.market.trading_days import MARKET_CLOSE, as_shanghai, is_trading_day, knows

if TYPE_CHECKING:  # what the import and the sync load, so /chart and the watch list do not
    from pixiu_cli.account.handle import Account
    from pixiu_cli.market.analytics.costs import CostModel
    from pixiu_cli.market.analytics.refresh import RefreshSummary
    from pixiu_cli.market.fundamentals.service import KeptRefresh
    from pixiu_cli.market.handle import Market
    from pixiu_cli.market.importer import ImportResult
    from pixiu_cli.market.security_master import MasterRefresh
    from pixiu_cli.market.sync import SyncOutcome


def _stamp(now: datetime) -> str:
    return now.isoformat(timespec="seconds")


@dataclass(frozen=True)
class BarImport:
    path: Path
    symbol: str  # as written: 600519, sh000300, 000300.SH, 沪深300 (services/import_symbol.py)
    name: str | None = None
    adjusted: str = "none"  # how the file's prices are adjusted: none | qfq | hfq
    actions_path: Path | None = None
    volume_unit: str = "auto"


@dataclass(frozen=True)
class BarsImported:
    result: ImportResult
    refreshed: RefreshSummary
    target: ImportSymbol  # what the spelling named: a stock, or an index benchmark


def import_bars(market: Market, request: BarImport, now: datetime, costs: CostModel | None) -> BarsImported:
    """One stock's (or index benchmark's) daily bars, stored unadjusted with their provenance;
    a bad file writes nothing."""

    target = import_symbol(market.securities, request.symbol)
    try:
        result = import_csv(
            market.bars,
            market.securities,
            request.path,
            target.symbol,
            at=_stamp(now),
            name=request.name,
            adjusted=request.adjusted,
            actions_path=request.actions_path,
            volume_unit=request.volume_unit,
            today=as_shanghai(now).date(),
        )
    except CsvImportError as exc:
        raise RequestError(f"导入失败，未做任何修改：{exc}") from None
    return BarsImported(result, refresh(market, [target.symbol], now, costs), target)


@dataclass(frozen=True)
class ManyImported:
    imported: list[ImportResult]
    failed: list[tuple[Path, str]]  # the file and why (one line); its bars were not written
    refreshed: RefreshSummary | None  # None with refresh=False
    notes: list[tuple[Path, BareCode]] = field(default_factory=list)  # a bare code an index shares


BAR_FILE_SUFFIXES = (".csv", ".txt", ".tsv")


def bar_files(paths: list[Path]) -> list[Path]:
    """The files named, a folder standing for its bar files (sorted); `X_actions.csv` files
    are the actions of `X.csv`, not bars."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out += sorted(f for f in path.iterdir() if f.suffix.lower() in BAR_FILE_SUFFIXES and f.is_file())
        else:
            out.append(path)
    return [f for f in out if not f.stem.lower().endswith("_actions")]


def import_many(
    market: Market,
    files: list[Path],
    now: datetime,
    costs: CostModel | None,
    *,
    advance: Callable[[], None] = lambda: None,
    refresh_after: bool = True,
) -> ManyImported:
    """Every file in one process, each in its own transaction (a bad file is reported and
    writes nothing; the others are kept), then one refresh of every imported symbol."""

    bars, master, stamp = market.bars, market.securities, _stamp(now)
    imported, failed, notes = [], [], []
    for path in files:
        spelling = spelling_in_name(path)
        actions = path.with_name(f"{path.stem}_actions{path.suffix}")
        try:
            if spelling is None:
                raise CsvImportError("文件名里没有 6 位股票代码（单个文件可用 --symbol 指定）")
            target = import_symbol(master, spelling)
            found = actions if actions.is_file() else None
            imported.append(
                import_csv(
                    bars, master, path, target.symbol, at=stamp, actions_path=found, today=as_shanghai(now).date()
                )
            )
            notes += [(path, target.decided)] if target.decided else []
        except (CsvImportError, RequestError) as exc:
            failed.append((path, str(exc)))
        advance()
    symbols = [r.symbol for r in imported]
    refreshed = refresh(market, symbols, now, costs) if refresh_after and symbols else None
    return ManyImported(imported, failed, refreshed, notes)


def sync_targets(market: Market, symbols: list[str] | None) -> list[str]:
    """The series a sync fetches: those given, else the holdings, the watch list and the
    index benchmarks (stored under their prefixed keys, see domain/benchmarks.py)."""
    if symbols:
        return symbols
    return held_and_watched(market) + [b.key for b in BENCHMARKS]


@dataclass(frozen=True)
class SyncRequest:
    symbols: list[str]
    source: str  # one of market.source_by_name.SOURCE_NAMES
    since: str | None = None  # refetch from this day (default: incremental)
    timeout: float = 20.0
    daily: bool = False  # the default sync: also what is kept beside the bars (services/fundamentals.py)


@dataclass(frozen=True)
class SyncResult:
    outcomes: list[SyncOutcome]
    calendar_notes: list[str]  # days where the source's trading dates disagree with the calendar file
    refreshed: RefreshSummary | None  # None: no series got bars, so nothing was recomputed
    pushed: list = field(default_factory=list)  # [push] alerts: each new alert's delivery (push/deliver.py)
    kept: KeptRefresh | None = None  # the daily sync's fundamentals and market snapshot

    @property
    def failed(self) -> list[SyncOutcome]:
        return [o for o in self.outcomes if o.error]


def sync_market(
    market: Market,
    request: SyncRequest,
    now: datetime,
    costs: CostModel | None,
    on_symbol: Callable[[SyncOutcome], None] = lambda outcome: None,
    push=None,
) -> SyncResult:
    """Fetch each stock's new bars and actions (one transaction per stock), then recompute
    what depends on the ones that got bars. A stock that fails keeps its data, marked stale.
    With `push` ([push], alerts = true) the alerts this sync found are pushed, each once."""
    from pixiu_cli.market.sync import sync

    pushing = push is not None and push.alerts and push.channels  # else the push modules stay unloaded
    if pushing:
        from pixiu_cli.brief.handle import Brief
        from pixiu_cli.brief.push.deliver import push_new_alerts

        brief = Brief(market.db)  # the push log and channels' deliveries over this connection
        mark = brief.push_log.last_alert_id()  # the alerts this sync finds come after it

    notes: list[str] = []
    source = open_source(request.source, request.timeout)
    try:
        outcomes = sync(
            market.bars,
            market.securities,
            source,
            request.symbols,
            since=request.since,
            now=now,
            on_symbol=on_symbol,
            on_calendar=notes.extend,
        )
    finally:
        source.close()
    changed = [o.symbol for o in outcomes if not o.error and o.rows]
    refreshed = refresh(market, changed, now, costs) if changed else None  # nothing new: no numpy, no work
    pushed = push_new_alerts(brief, push, mark, now) if pushing else []
    kept = None
    if request.daily:
        kept = refresh_kept(market, request.source, request.timeout, now)
    return SyncResult(outcomes, notes, refreshed, pushed, kept)


@dataclass(frozen=True)
class SecuritiesRequest:
    source: str  # one of market.source_by_name.SOURCE_NAMES
    timeout: float = 20.0


def sync_securities(market: Market, request: SecuritiesRequest, now: datetime) -> MasterRefresh:
    """Refresh the security master from a source's list of every listed stock. A failure
    (network, a missing library, an empty or truncated list) writes nothing: the shipped
    list and any earlier sync stay in force."""

    try:
        source = open_source(request.source, request.timeout)
        try:
            listed = source.securities()
            if not listed:
                raise SourceError(f"{request.source} 没有返回证券列表")
            return refresh_master(market.securities, source.name, listed, _stamp(now), whole_market=True)
        finally:
            source.close()
    except SourceError as exc:
        raise RequestError(f"证券列表未更新：{exc}；已保留现有列表") from None


def watch(market: Market, symbol: str, now: datetime) -> bool:
    """False when it was already watched."""
    return market.bars.watch(symbol, _stamp(now))


@dataclass(frozen=True)
class Watched:
    symbol: str
    name: str | None
    added_at: str


def watchlist(market: Market) -> list[Watched]:
    """Each watched stock with its name: the security master's, else the shipped list's."""
    from pixiu_cli.market.names.table import NameSource

    names = NameSource(market.securities)
    return [Watched(symbol, names.security_name(symbol), at) for symbol, at in market.bars.watchlist()]


def chart(market: Market, account: Account, symbol: str, days: int, now: datetime, **style) -> str:
    """The terminal chart: front-adjusted closes, MA20/MA60, the account's cost line (as the
    account values it) and the trades."""
    from pixiu_cli.market.chart import build

    held = account.read(now).account.holding(symbol)
    cost = float(held.cost) if held is not None else None
    return build(MarketData(market), market.investor, symbol, days, cost, **style)


@dataclass(frozen=True)
class StaleMarket:
    session: str  # today's session, closed: what the data should reach
    symbols: tuple[str, ...]  # the stored series behind it
    behind: int  # the most sessions any of them is behind


def after_close(now: datetime) -> bool:
    """Past 15:00 Beijing time on a day the calendar knows is a trading day."""
    local = as_shanghai(now)
    return knows(local.date()) and is_trading_day(local.date()) and local.time() >= MARKET_CLOSE


def stale_market(market: Market, now: datetime) -> StaleMarket | None:
    """None before the close, on a day without a session, past the calendar's end, or when
    every stored series of the default sync has today's bar. Series never stored are left
    out: a user who keeps no market data is not asked to sync every day."""
    if not after_close(now):
        return None
    bars = market.bars
    calendar = TradingCalendar(bars)
    behind = {}
    for info in bars.series(sync_targets(market, None)):
        days = calendar.stale_days(info.last, now)
        if days:  # None: nothing stored
            behind[info.symbol] = days
    if not behind:
        return None
    return StaleMarket(as_shanghai(now).date().isoformat(), tuple(behind), max(behind.values()))
