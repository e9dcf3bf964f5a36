"""`pixiu data sync`: fetch new bars and actions for each symbol, one transaction per symbol.
What a source returns passes the plausibility gate (market/gate.py) first: what it refuses is
left out and named, the rest is stored.
When the source fails, what is stored stays, the symbol is marked stale, and the failure is
one line naming the source and the reason; after a failure that is not about one symbol
(not installed, login, timeout) the remaining symbols are not tried."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from pixiu_cli.market.bars import Bar, PriceColumns, SeriesWrite, SuspectGap, suspect_gaps
from pixiu_cli.market.calendar import calendar_mismatches
from pixiu_cli.market.gate import screen_actions, screen_bars
from pixiu_cli.market.security_master import refresh_master
from pixiu_cli.market.sources import PriceSource, SourceError
from pixiu_cli.market.store import MarketStore, SecurityMaster
from pixiu_cli.market.trading_days import write_refresh

DEFAULT_YEARS = 10
CALENDAR_AHEAD_DAYS = 400  # sources publish the next year's sessions once the holidays are announced


@dataclass(frozen=True)
class SyncOutcome:
    symbol: str
    rows: int = 0
    first: str | None = None
    last: str | None = None
    error: str | None = None
    suspects: tuple[SuspectGap, ...] = ()  # gaps beyond the daily limit no action explains
    refused: tuple[str, ...] = ()  # a line per bar or action the plausibility gate kept out


def _start(market: MarketStore, symbol: str, since: str | None, today: date) -> str:
    if since:
        return since
    info = market.series([symbol])[0]
    if info.last:  # incremental: from the day after the newest stored bar
        return (date.fromisoformat(info.last) + timedelta(days=1)).isoformat()
    return today.replace(year=today.year - DEFAULT_YEARS).isoformat()


def sync_symbol(market: MarketStore, source: PriceSource, symbol: str, since: str | None, now: datetime) -> SyncOutcome:
    today = now.date()
    start, end = _start(market, symbol, since, today), today.isoformat()
    if start > end:
        return SyncOutcome(symbol)
    # a bar before the days asked is one the source added unasked; the rest pass the gate,
    # which names what it keeps out (a bar dated 9999-12-31, 2025-02-30 or on a Saturday)
    asked = (b for b in source.daily_bars(symbol, start, end) if b.date >= start)
    bars, refused_bars = screen_bars(source.name, symbol, asked, today, set(market.trading_days(start, end)))
    first_stored = market.series([symbol])[0].first or start
    fetched = source.actions(symbol, min(first_stored, start), end)
    prices = PriceColumns.merged(symbol, market.bars(symbol), bars) if fetched else None
    actions, refused_actions = screen_actions(source.name, fetched, prices, today)
    market.write_series(
        SeriesWrite(
            symbol,
            bars,
            source=source.name,
            at=now.isoformat(timespec="seconds"),
            origin=f"{source.name} {start}..{end}",
            actions=actions,
            replace_actions_from=source.name,
        )
    )
    before = market.close_before(symbol, bars[0].date) if bars else None
    # the first new bar is checked against the last stored close too (an incremental sync)
    checked = ([Bar(before[0], before[1], before[1], before[1], before[1], 0.0)] if before else []) + list(bars)
    suspects = tuple(suspect_gaps(symbol, checked, market.actions(symbol)))
    refused = tuple(r.line() for r in refused_bars + refused_actions)
    first, last = (bars[0].date, bars[-1].date) if bars else (None, None)
    return SyncOutcome(symbol, len(bars), first, last, suspects=suspects, refused=refused)


def sync(
    market: MarketStore,
    master: SecurityMaster,
    source: PriceSource,
    symbols: Sequence[str],
    *,
    since: str | None,
    now: datetime,
    on_symbol: Callable[[SyncOutcome], None] = lambda o: None,
    on_calendar: Callable[[list[str]], None] = lambda notes: None,
) -> list[SyncOutcome]:
    """on_calendar receives the days where the source's trading dates disagree with the
    shipped holiday file (the source's dates are stored and win for staleness)."""
    stamp = now.isoformat(timespec="seconds")
    outcomes: list[SyncOutcome] = []
    try:
        securities = source.securities() if getattr(source, "lists_with_bars", True) else []
        if securities:
            refresh_master(master, source.name, securities, stamp)
        start = since or (now.date() - timedelta(days=366)).isoformat()
        end = (now.date() + timedelta(days=CALENDAR_AHEAD_DAYS)).isoformat()
        days = source.trading_days(start, end)
        market.add_trading_days(days, source.name)
        if days:  # up to the source's last listed day: today may not be listed yet
            notes = calendar_mismatches(days, start, max(days))
            if notes:
                on_calendar(notes)
            write_refresh(days, source.name)  # the source may know sessions past the shipped end
    except SourceError as exc:
        return _fail_rest(market, symbols, str(exc), stamp, outcomes, on_symbol)
    for index, symbol in enumerate(symbols):
        try:
            outcome = sync_symbol(market, source, symbol, since, now)
        except SourceError as exc:
            return _fail_rest(market, symbols[index:], str(exc), stamp, outcomes, on_symbol)
        outcomes.append(outcome)
        on_symbol(outcome)
    return outcomes


def _fail_rest(
    market: MarketStore, symbols: Sequence[str], error: str, stamp: str, outcomes: list[SyncOutcome], on_symbol
) -> list[SyncOutcome]:
    for symbol in symbols:
        market.mark_failed(symbol, error, stamp)
        outcome = SyncOutcome(symbol, error=error)
        outcomes.append(outcome)
        on_symbol(outcome)
    return outcomes
