"""One symbol's bars as numpy columns for the engine: real (unadjusted) prices to trade and
mark to market, front-adjusted closes for signals, each day's corporate action, and the
reference price and limits that decide whether an open could be traded at all."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from datetime import date, timedelta

import numpy as np

from pixiu_cli.market.adjust import ex_ratios
from pixiu_cli.market.bars import BarSeries, CorporateAction
from pixiu_cli.market.boards import OrderSize, limit_schedule, listing_free_sessions, order_size


@dataclass(frozen=True)
class Frame:
    symbol: str
    dates: list[str]
    open: np.ndarray
    high: np.ndarray
    low: np.ndarray
    close: np.ndarray  # real prices: what an order fills at and a holding is worth
    adj_close: np.ndarray  # front-adjusted: what signals read, so an ex-rights gap is no crash
    adj_high: np.ndarray
    adj_low: np.ndarray
    traded: np.ndarray  # bool: the stock traded that day (not suspended, volume > 0)
    cash_per_share: np.ndarray  # paid on the ex-date, per share held the evening before
    shares_per_share: np.ndarray  # bonus and transferred shares per share on the ex-date
    factor_ratio: np.ndarray  # a source's own price ratio on the ex-date (1 elsewhere)
    reference: np.ndarray  # yesterday's close as today's limits see it (after any ex-rights)
    limit_up: np.ndarray  # price at which an open is pinned at limit-up (inf: no limit)
    limit_down: np.ndarray

    def __len__(self) -> int:
        return len(self.dates)

    @property
    def order_size(self) -> OrderSize:
        return order_size(self.symbol)

    def window(self, start: int, end: int | None = None) -> Frame:
        cut = slice(start, end)
        return Frame(self.symbol, self.dates[cut], *(getattr(self, name)[cut] for name in _ARRAYS))


_ARRAYS = (
    "open",
    "high",
    "low",
    "close",
    "adj_close",
    "adj_high",
    "adj_low",
    "traded",
    "cash_per_share",
    "shares_per_share",
    "factor_ratio",
    "reference",
    "limit_up",
    "limit_down",
)


def _events(dates: list[str], actions: list[CorporateAction]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-day cash, shares and price ratio of the actions whose ex-date falls on that day
    (or on the first traded day after it, when the ex-date itself was a suspension)."""
    n = len(dates)
    cash, shares, ratio = np.zeros(n), np.zeros(n), np.ones(n)
    seen: set[str] = set()
    for a in sorted(actions, key=lambda a: a.ex_date):
        if a.ex_date in seen:
            continue
        seen.add(a.ex_date)
        i = bisect_left(dates, a.ex_date)
        if i >= n or i == 0:
            continue
        if a.method == "cash_shares":
            cash[i] += a.cash_per_share
            shares[i] = (1 + shares[i]) * (1 + a.shares_per_share) - 1
        elif a.ratio:
            ratio[i] *= a.ratio
    return cash, shares, ratio


def _listing_free(symbol: str, dates: list[str], list_date: str | None) -> np.ndarray:
    """The sessions from the listing day that its board's rules on that day leave without a
    limit (domain/boards.py): five under a registration reform, else the listing day only —
    a one-price limit-up run from the second day (300750 in June 2018) cannot be bought into."""
    free = np.zeros(len(dates), dtype=bool)
    if list_date and dates and list_date >= dates[0]:
        start = bisect_left(dates, list_date)
        free[start : start + listing_free_sessions(symbol, list_date)] = True
    return free


def limit_array(symbol: str, dates: np.ndarray, is_st: np.ndarray) -> np.ndarray:
    """Each day's limit from the board's dated table, for ST and other days alike."""
    out = np.empty(len(dates))
    for st in (False, True):
        schedule = limit_schedule(symbol, st)
        starts = np.asarray([start for start, _ in schedule])
        limits = np.asarray([limit for _, limit in schedule])
        row = np.maximum(np.searchsorted(starts, dates, side="right") - 1, 0)
        out[is_st == st] = limits[row][is_st == st]
    return out


def adjusted_factors(raw: BarSeries, actions: list[CorporateAction]) -> np.ndarray:
    """Front-adjustment (qfq) multiplier per day: Π 1/ratio over the events after that day."""
    factors = np.ones(len(raw))
    for event in ex_ratios(raw, actions):
        factors[: bisect_left(raw.dates, event.ex_date)] /= event.ratio
    return factors


def build_frame(raw: BarSeries, actions: list[CorporateAction], *, list_date: str | None = None) -> Frame:
    """`raw`: unadjusted bars; the front-adjusted columns are derived here with the same
    event ratios `pixiu data bars --adjust qfq` uses."""
    dates = list(raw.dates)
    o, h, lo, c = (np.asarray(getattr(raw, k), dtype=float) for k in ("open", "high", "low", "close"))
    volume = np.asarray(raw.volume, dtype=float)
    traded = (np.asarray(raw.trade_status, dtype=int) == 1) & (volume > 0)
    cash, shares, ratio = _events(dates, actions)
    reference = np.empty_like(c)
    reference[0] = np.nan
    reference[1:] = ((c[:-1] - cash[1:]) / (1 + shares[1:])) / ratio[1:]
    limits = limit_array(raw.symbol, np.asarray(dates), np.asarray(raw.is_st, dtype=bool))
    free = _listing_free(raw.symbol, dates, list_date) | np.isnan(reference)
    up = np.where(free, np.inf, np.round(reference * (1 + limits) + 1e-9, 2))
    down = np.where(free, -np.inf, np.round(reference * (1 - limits) + 1e-9, 2))
    factor = adjusted_factors(raw, actions)
    return Frame(
        raw.symbol,
        dates,
        o,
        h,
        lo,
        c,
        c * factor,
        h * factor,
        lo * factor,
        traded,
        cash,
        shares,
        ratio,
        reference,
        up,
        down,
    )


def three_year_start(dates: list[str], years: int = 3) -> int:
    """Index of the first bar inside the `years` before the last bar."""
    if not dates:
        return 0
    last = date.fromisoformat(dates[-1])
    cutoff = (
        last.replace(year=last.year - years) + timedelta(days=1)
        if not (last.month == 2 and last.day == 29)
        else date(last.year - years, 3, 1)
    )
    return bisect_left(dates, cutoff.isoformat())  # dates ascend: no numpy copy of them
