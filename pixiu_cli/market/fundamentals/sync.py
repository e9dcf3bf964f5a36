"""`pixiu data sync --fundamentals` and the daily sync's part of it: for each stock, the
valuation days since the last stored one, and — when asked for, or when due (a new report
period, see domain/fundamentals.refresh_due) — its recent report periods, dividends and
notices; one transaction per stock. A source that fails leaves what is stored, says why in
one line, and the remaining stocks are not tried (as a bar sync)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta

from pixiu_cli.market.fundamentals.model import (
    PERCENTILE_YEARS,
    FinancialReport,
    FundamentalsWrite,
    recent_periods,
    refresh_due,
)
from pixiu_cli.market.fundamentals.store import FundamentalsStore
from pixiu_cli.market.gate import screen_fundamentals
from pixiu_cli.market.sources import SourceError
from pixiu_cli.market.store import MarketStore

FIRST_PERIODS = 8  # two years: a period a year earlier for every one of the last four
LATER_PERIODS = 4
DIVIDEND_YEARS = 6
NOTICE_DAYS = 400
# The stock's close before a day (from its stored bars, else the sync's valuation days).
Closes = Callable[[str, str, Sequence], float | None]


@dataclass(frozen=True)
class FundamentalsOutcome:
    symbol: str
    valuations: int = 0
    reports: int = 0
    dividends: int = 0
    notices: int = 0
    latest_period: str | None = None
    reports_fetched: bool = False
    error: str | None = None
    refused: tuple[str, ...] = ()  # a line per row the plausibility gate kept out


def _valuation_start(store: FundamentalsStore, symbol: str, today: date) -> str:
    last = store.last_valuation_date(symbol)
    if last:
        return (date.fromisoformat(last) + timedelta(days=1)).isoformat()
    return (today - timedelta(days=round(365.25 * PERCENTILE_YEARS) + 7)).isoformat()


def with_growth(fetched: list[FinancialReport], stored: list[FinancialReport]) -> list[FinancialReport]:
    """Revenue growth where the source gives none: against the same period a year earlier,
    from this sync's or the stored reports of the same source."""
    by_period = {r.period: r for r in stored if r.source in {f.source for f in fetched}}
    by_period |= {r.period: r for r in fetched}
    out = []
    for r in fetched:
        before = by_period.get(f"{int(r.period[:4]) - 1}{r.period[4:]}")
        if r.revenue_yoy is None and r.revenue and before and before.revenue:
            r = replace(r, revenue_yoy=r.revenue / before.revenue - 1)
        out.append(r)
    return out


def _reports_due(store: FundamentalsStore, symbol: str, today: date) -> bool:
    state = store.sync_state(symbol) or {}
    stamp = state.get("reports_at")
    latest = store.reports(symbol, 1)
    return refresh_due(latest[0].period if latest else None, date.fromisoformat(stamp[:10]) if stamp else None, today)


def _screened(write: FundamentalsWrite, today: date, closes: Closes) -> tuple[FundamentalsWrite, tuple[str, ...]]:
    """The write through the plausibility gate, and a line per row it kept out."""
    kept, refused = screen_fundamentals(write, today, lambda day: closes(write.symbol, day, write.valuations))
    return kept, tuple(r.line() for r in refused)


def _no_closes(symbol: str, day: str, valuations) -> float | None:
    return None


def stored_closes(market: MarketStore) -> Closes:
    """The close before a day: the stock's stored bar, else the sync's own valuation day
    before it, else the first one after it (a dividend is below the stock's price, whichever
    side of its ex-date the known price is)."""

    def close(symbol: str, day: str, valuations) -> float | None:
        stored = market.close_before(symbol, day)
        if stored is not None:
            return stored[1]
        priced = sorted((v.date, v.close) for v in valuations if v.close is not None)
        before = [c for d, c in priced if d < day]
        return float(before[-1]) if before else (float(priced[0][1]) if priced else None)

    return close


def sync_one(
    store: FundamentalsStore, source, symbol: str, now: datetime, force: bool, closes: Closes = _no_closes
) -> FundamentalsOutcome:
    today = now.date()
    stamp = now.isoformat(timespec="seconds")
    start = _valuation_start(store, symbol, today)
    valuations = source.valuations(symbol, start, today.isoformat()) if start <= today.isoformat() else []
    if not (force or _reports_due(store, symbol, today)):
        write, refused = _screened(
            FundamentalsWrite(symbol, source.name, stamp, tuple(valuations), reports_fetched=False), today, closes
        )
        store.write(write)
        return FundamentalsOutcome(symbol, len(write.valuations), refused=refused)
    stored = store.reports(symbol, FIRST_PERIODS)
    periods = recent_periods(today, LATER_PERIODS if stored else FIRST_PERIODS)
    reports = with_growth(source.reports(symbol, periods), stored)
    dividends = source.dividends(symbol, list(range(today.year - DIVIDEND_YEARS + 1, today.year + 1)))
    notices = source.notices(symbol, (today - timedelta(days=NOTICE_DAYS)).isoformat(), today.isoformat())
    write, refused = _screened(
        FundamentalsWrite(
            symbol, source.name, stamp, tuple(valuations), tuple(reports), tuple(dividends), tuple(notices)
        ),
        today,
        closes,
    )
    store.write(write)
    latest = max((r.period for r in write.reports), default=None)
    counts = (len(write.valuations), len(write.reports), len(write.dividends), len(write.notices))
    return FundamentalsOutcome(symbol, *counts, latest, True, refused=refused)


def sync_fundamentals(
    store: FundamentalsStore,
    source,
    symbols: Sequence[str],
    now: datetime,
    *,
    force: bool,
    on_symbol: Callable[[FundamentalsOutcome], None] = lambda o: None,
    closes: Closes = _no_closes,
) -> list[FundamentalsOutcome]:
    """force: fetch the reports of every stock (an explicit --fundamentals), not only the due ones;
    closes(symbol, day, valuations): the stock's close before `day`, a dividend's bound."""
    stamp = now.isoformat(timespec="seconds")
    outcomes: list[FundamentalsOutcome] = []
    for index, symbol in enumerate(symbols):
        try:
            outcome = sync_one(store, source, symbol, now, force, closes)
        except SourceError as exc:
            for rest in symbols[index:]:
                store.mark_failed(rest, str(exc), stamp)
                failed = FundamentalsOutcome(rest, error=str(exc))
                outcomes.append(failed)
                on_symbol(failed)
            return outcomes
        outcomes.append(outcome)
        on_symbol(outcome)
    return outcomes
