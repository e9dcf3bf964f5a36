"""Gaps that look like an ex-rights day nobody told us about (疑似除权除息): the open falls
below the previous close by more than the board's daily limit allows, and no stored action
has that ex-date. Only falls are checked — an ex-rights day always lowers the price, while a
new listing's first days may legitimately rise far beyond any limit. A small cash dividend
moves the price less than the limit and cannot be seen this way."""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass
from datetime import date
from typing import NamedTuple

from pixiu_cli.market.bars import Bar, BarSeries, CorporateAction
from pixiu_cli.market.boards import daily_limit

TOLERANCE = 0.005  # limit prices are rounded to the fen: −10.04% is still a limit-down open


@dataclass(frozen=True)
class SuspectGap:
    date: str
    prev_date: str
    prev_close: float
    open: float

    @property
    def change(self) -> float:
        return self.open / self.prev_close - 1


class PriceColumns(NamedTuple):
    """What the gap checks (and the plausibility gate's ex-date check) read of a series,
    oldest first."""

    symbol: str
    dates: Sequence[str]
    opens: Sequence[float]
    closes: Sequence[float]
    st: Sequence[bool]

    @classmethod
    def of_bars(cls, symbol: str, bars: Sequence[Bar]) -> PriceColumns:
        return cls(
            symbol, [b.date for b in bars], [b.open for b in bars], [b.close for b in bars], [b.is_st for b in bars]
        )

    @classmethod
    def of_series(cls, series: BarSeries) -> PriceColumns:
        return cls(series.symbol, series.dates, series.open, series.close, series.is_st)

    @classmethod
    def merged(cls, symbol: str, stored: BarSeries, bars: Sequence[Bar]) -> PriceColumns:
        """The stored series with a sync's new bars, which win on a date both have."""
        rows = {d: (o, c, st) for d, o, c, st in zip(stored.dates, stored.open, stored.close, stored.is_st)}
        rows.update((b.date, (b.open, b.close, b.is_st)) for b in bars)
        dates = sorted(rows)
        opens, closes, st = zip(*(rows[d] for d in dates)) if dates else ((), (), ())
        return cls(symbol, dates, opens, closes, st)

    def opened_below(self, fraction: float) -> list[int]:
        """The days (indices from 1) whose open was at or below `fraction` of the close before."""
        import numpy as np

        prev, now = np.asarray(self.closes[:-1], dtype=float), np.asarray(self.opens[1:], dtype=float)
        return (np.flatnonzero((prev > 0) & (now <= prev * fraction)) + 1).tolist()


def suspect_gaps(symbol: str, bars: Sequence[Bar], actions: Sequence[CorporateAction]) -> list[SuspectGap]:
    return _falls(PriceColumns.of_bars(symbol, bars), actions)


def series_gaps(series: BarSeries, actions: Sequence[CorporateAction]) -> list[SuspectGap]:
    """suspect_gaps over a series' columns (an import's thousands of bars, no Bar each)."""
    return _falls(PriceColumns.of_series(series), actions)


def _falls(c: PriceColumns, actions: Sequence[CorporateAction]) -> list[SuspectGap]:
    explained = {a.ex_date for a in actions}
    # a fall within 5% is inside every board's limit: only the rest look up the limit
    out = []
    for i in c.opened_below(0.95):
        if c.dates[i] in explained:
            continue
        limit = daily_limit(c.symbol, c.dates[i], c.st[i] or c.st[i - 1])
        if c.opens[i] / c.closes[i - 1] - 1 < -(limit + TOLERANCE):
            out.append(SuspectGap(c.dates[i], c.dates[i - 1], c.closes[i - 1], c.opens[i]))
    return out


# Ex-dividend days inside the limit. A cash dividend lowers the open by the dividend, often
# 1.5–5% for a steady payer: no limit is broken, so suspect_gaps cannot see it, yet every qfq
# series, profile and signal then reads the gap as a market drop. A stock that is known to
# pay (at least one stored action) but has no action in a year's dividend season gets that
# season's largest open gap flagged, when it is neither a limit open nor a day most other
# stored series (an index, other holdings) also opened that low, nor a resumption.
MIN_DIVIDEND_GAP = 0.015
DIVIDEND_SEASON = ("05-01", "08-31")  # annual dividends go ex within two months of the AGM, due by June
RESUMPTION_DAYS = 10  # a gap after a longer pause is news, not a dividend


def _season_covered(year: str, first: str, last: str) -> bool:
    return first <= f"{year}-{DIVIDEND_SEASON[0]}" and f"{year}-{DIVIDEND_SEASON[1]}" <= last


def missing_dividend_gaps(
    symbol: str, bars: Sequence[Bar], actions: Sequence[CorporateAction], market_wide: Container[str] = ()
) -> list[SuspectGap]:
    """One suspected ex-dividend day per dividend season that no stored action covers."""
    return _dividend_gaps(PriceColumns.of_bars(symbol, bars), actions, market_wide)


def series_dividend_gaps(
    series: BarSeries,
    actions: Sequence[CorporateAction],
    market_wide: Container[str] = (),
    years: tuple[str, str] = ("0000", "9999"),
) -> list[SuspectGap]:
    """missing_dividend_gaps over a series' columns (no Bar for each of its thousands of days),
    for the seasons of `years` (first, last): each season is judged whole, so a window's gaps
    are its years' gaps within it."""
    return _dividend_gaps(PriceColumns.of_series(series), actions, market_wide, years)


def _dividend_gaps(
    c: PriceColumns, actions: Sequence[CorporateAction], market_wide: Container[str], years=("0000", "9999")
) -> list[SuspectGap]:
    if not actions or len(c.dates) < 2:
        return []
    paid_years = {a.ex_date[:4] for a in actions}
    first, last = c.dates[0], c.dates[-1]
    seasons: dict[str, list[SuspectGap]] = {}
    for i in c.opened_below(1 - MIN_DIVIDEND_GAP):  # no smaller gap can look like a dividend
        day, year = c.dates[i], c.dates[i][:4]
        if year in paid_years or not years[0] <= year <= years[1]:
            continue
        if not (DIVIDEND_SEASON[0] <= day[5:] <= DIVIDEND_SEASON[1]):
            continue
        if not _season_covered(year, first, last):
            continue
        if (date.fromisoformat(day) - date.fromisoformat(c.dates[i - 1])).days > RESUMPTION_DAYS:
            continue
        limit = daily_limit(c.symbol, day, c.st[i] or c.st[i - 1])
        if not c.opens[i] / c.closes[i - 1] - 1 > -(limit - TOLERANCE):  # a limit open is the market's verdict
            continue
        seasons.setdefault(year, []).append(SuspectGap(day, c.dates[i - 1], c.closes[i - 1], c.opens[i]))
    # Each season's largest gap that is not a market-wide day, largest first (the earliest of
    # equal ones): `market_wide` may read every series on the day it is asked about, so it is
    # asked about a day or two per season, not each candidate.
    picked = (
        next((g for g in sorted(seasons[y], key=lambda g: g.change) if g.date not in market_wide), None)
        for y in sorted(seasons)
    )
    return [gap for gap in picked if gap is not None]


def market_wide_days(gaps_by_date: dict[str, tuple[int, int]]) -> frozenset[str]:
    """Days on which at least half of the other series opened MIN_DIVIDEND_GAP lower."""
    return frozenset(day for day, (gapped, present) in gaps_by_date.items() if present and gapped * 2 >= present)


def missing_actions_note(count: int) -> str | None:
    return f"疑似缺少除权记录（{count} 处）" if count else None
