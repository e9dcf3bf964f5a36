"""Market data: unadjusted daily bars (one by one, or one symbol's as columns), corporate
actions, the provenance of a stored series, and what one import or sync writes. Adjustment
happens above the store (pixiu_cli/market/bars.py), never in a stored row.

Adjusted prices, computed on read from unadjusted bars and corporate actions.

Each ex-rights day e has a ratio r_e = P / ((P − cash) / (1 + shares)), P being the
unadjusted close before e (or the source's own factor when it gave one). Then

    qfq (前复权) price on day t = unadjusted × Π 1/r_e over events with ex_date > t
    hfq (后复权) price on day t = unadjusted × Π r_e   over events with ex_date ≤ t

so the newest qfq prices equal the real ones and the oldest hfq prices do. Volumes are left
as traded. The same ratios undo an adjusted file on import (`unadjust`).

Gaps that look like an ex-rights day nobody told us about (疑似除权除息): the open falls
below the previous close by more than the board's daily limit allows, and no stored action
has that ex-date. Only falls are checked — an ex-rights day always lowers the price, while a
new listing's first days may legitimately rise far beyond any limit. A small cash dividend
moves the price less than the limit and cannot be seen this way.

The index benchmarks a default sync keeps current and excess returns are measured
against. Their bars are stored under the exchange-prefixed code (`sh000300`), never the bare
six digits: 000001 is 上证指数 on Shanghai and 平安银行 on Shenzhen, and one key for both
would mix an index's bars into a stock's series."""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import NamedTuple

from pixiu_cli.market.securities import daily_limit

# How a price file counts its volume: read from the file (auto), in shares, or in lots of 100.
VOLUME_UNITS = ("auto", "shares", "lots")


@dataclass(frozen=True)
class Bar:
    date: str  # YYYY-MM-DD
    open: float
    high: float
    low: float
    close: float
    volume: float  # shares
    amount: float | None = None  # yuan
    trade_status: int = 1  # 1 traded, 0 suspended (a source may list suspended days)
    is_st: bool = False


@dataclass(frozen=True)
class BarSeries:
    """One symbol's daily bars as columns (oldest first), so analytics can hand a column
    straight to numpy (`numpy.asarray(series.close)`) without a per-row loop."""

    symbol: str
    adjust: str  # none | qfq | hfq
    dates: tuple[str, ...] = ()
    open: tuple[float, ...] = ()
    high: tuple[float, ...] = ()
    low: tuple[float, ...] = ()
    close: tuple[float, ...] = ()
    volume: tuple[float, ...] = ()
    amount: tuple[float | None, ...] = ()
    trade_status: tuple[int, ...] = ()
    is_st: tuple[bool, ...] = ()

    def __len__(self) -> int:
        return len(self.dates)

    def bars(self) -> list[Bar]:
        return [
            Bar(*row)
            for row in zip(
                self.dates,
                self.open,
                self.high,
                self.low,
                self.close,
                self.volume,
                self.amount,
                self.trade_status,
                self.is_st,
            )
        ]


@dataclass(frozen=True)
class CorporateAction:
    symbol: str
    ex_date: str
    cash_per_share: float = 0.0  # yuan paid per share (10派12 → 1.2)
    shares_per_share: float = 0.0  # bonus + transferred shares per share (10送2 → 0.2)
    ratio: float | None = None  # the source's price ratio before/after, when it gave one
    source: str = "import"
    method: str = "cash_shares"  # cash_shares | factor
    fetched_at: str | None = None


@dataclass(frozen=True)
class SeriesInfo:
    symbol: str
    rows: int
    first: str | None
    last: str | None
    source: str | None
    origin: str | None
    file_adjusted: str | None
    volume_unit: str | None
    last_sync_at: str | None
    last_error: str | None
    stale: bool


@dataclass(frozen=True)
class SeriesWrite:
    """Everything one import or sync writes for one symbol, committed together."""

    symbol: str
    bars: Sequence[Bar] | BarSeries  # an import writes columns as parsed, a sync its Bars
    source: str
    at: str
    origin: str | None = None
    file_adjusted: str = "none"
    volume_unit: str = "shares"
    actions: Sequence[CorporateAction] = field(default_factory=tuple)
    replace_actions_from: str | None = None  # drop this source's stored actions first


ADJUST_MODES = ("none", "qfq", "hfq")


@dataclass(frozen=True)
class ExRatio:
    ex_date: str
    ratio: float  # price before / reference price after (> 1 for a dividend or bonus shares)


def event_ratio(prev_close: float, action: CorporateAction) -> float | None:
    """The price ratio of one action given the unadjusted close before it (None if the
    numbers cannot describe a real event, e.g. a dividend larger than the price)."""
    if action.ratio:
        return action.ratio
    reference = (prev_close - action.cash_per_share) / (1 + action.shares_per_share)
    if prev_close <= 0 or reference <= 0:
        return None
    return prev_close / reference


def ex_ratios(
    series: BarSeries, actions: Sequence[CorporateAction], prev_close: Mapping[str, float] | None = None
) -> list[ExRatio]:
    """One ratio per ex-date (a source's own factor wins over one derived from cash/shares,
    so two sources describing the same event never count it twice). `prev_close` gives the
    close before each ex-date when `series` is only a window of the history."""
    by_date: dict[str, CorporateAction] = {}
    for a in actions:
        held = by_date.get(a.ex_date)
        if held is None or (a.ratio and not held.ratio):
            by_date[a.ex_date] = a
    out = []
    for ex_date, action in sorted(by_date.items()):
        if prev_close is not None:
            before = prev_close.get(ex_date)
        else:
            i = bisect_left(series.dates, ex_date)
            before = series.close[i - 1] if i else None
        if before is None and not action.ratio:
            continue  # no close before it in the stored bars: nothing to adjust
        ratio = event_ratio(before or 0.0, action)
        if ratio and ratio != 1.0:
            out.append(ExRatio(ex_date, ratio))
    return out


def _factors(dates: Sequence[str], ratios: list[ExRatio], mode: str) -> list[float]:
    """Per-bar multiplier for `mode`."""
    factors = []
    j, n = 0, len(ratios)
    if mode == "hfq":
        acc = 1.0
        for d in dates:
            while j < n and ratios[j].ex_date <= d:
                acc *= ratios[j].ratio
                j += 1
            factors.append(acc)
        return factors
    total = 1.0
    for r in ratios:
        total *= r.ratio
    acc = 1.0 / total  # before every event
    for d in dates:
        while j < n and ratios[j].ex_date <= d:
            acc *= ratios[j].ratio
            j += 1
        factors.append(acc)
    return factors


def adjust(
    series: BarSeries, actions: Sequence[CorporateAction], mode: str, prev_close: Mapping[str, float] | None = None
) -> BarSeries:
    if mode not in ADJUST_MODES:
        raise ValueError(f"adjust must be one of {ADJUST_MODES}")
    if mode == "none" or not len(series):
        return replace(series, adjust=mode)
    ratios = ex_ratios(series, actions, prev_close)
    f = _factors(series.dates, ratios, mode)

    def scaled(column):
        return tuple(p * k for p, k in zip(column, f))

    return BarSeries(
        series.symbol,
        mode,
        series.dates,
        scaled(series.open),
        scaled(series.high),
        scaled(series.low),
        scaled(series.close),
        series.volume,
        series.amount,
        series.trade_status,
        series.is_st,
    )


def unadjust(bars: Sequence[Bar], actions: Sequence[CorporateAction], mode: str) -> list[Bar]:
    """Real prices from a qfq or hfq file and the actions it was adjusted with. qfq: walk the
    events newest first (prices after the newest one are already real); hfq: oldest first."""
    if mode == "none":
        return list(bars)
    dates = [b.date for b in bars]
    prices = [[b.open, b.high, b.low, b.close] for b in bars]
    events = sorted({a.ex_date: a for a in actions}.values(), key=lambda a: a.ex_date)
    order = reversed(events) if mode == "qfq" else iter(events)
    for action in order:
        i = bisect_left(dates, action.ex_date)
        if i == 0 or i == len(dates):
            continue
        if mode == "qfq":
            # the close before e, still scaled by 1/r_e: it is the reference price itself
            real_prev = prices[i - 1][3] * (1 + action.shares_per_share) + action.cash_per_share
            ratio = action.ratio or real_prev / prices[i - 1][3]
            span = range(0, i)
            factor = ratio
        else:
            ratio = event_ratio(prices[i - 1][3], action)
            if not ratio:
                continue
            span = range(i, len(dates))
            factor = 1 / ratio
        for k in span:
            prices[k] = [p * factor for p in prices[k]]
    return [
        Bar(b.date, *(round(p, 4) for p in prices[k]), b.volume, b.amount, b.trade_status, b.is_st)
        for k, b in enumerate(bars)
    ]


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


@dataclass(frozen=True)
class Benchmark:
    code: str  # the exchange's six digits
    exchange: str  # sh | sz
    name: str

    @property
    def key(self) -> str:
        """The symbol its bars are stored under."""
        return f"{self.exchange}{self.code}"

    @property
    def shares_stock_codes(self) -> bool:
        """Its six digits are also in a stock's range: Shanghai's index codes (000xxx) are
        Shenzhen's main-board stock codes, while Shenzhen's 399xxx are indexes only."""
        return not self.code.startswith("399")


CSI300 = Benchmark("000300", "sh", "沪深300")
BENCHMARKS = (CSI300, Benchmark("000001", "sh", "上证指数"), Benchmark("399006", "sz", "创业板指"))
_BY_KEY = {b.key: b for b in BENCHMARKS}
_BY_NAME = {b.name.lower(): b for b in BENCHMARKS}

# sh000300, sh.000300, 000300.sh (the exchange in any case, after NFKC folds full width)
_PREFIXED = re.compile(r"(?:(sh|sz|bj)\.?([0-9]{6})|([0-9]{6})\.(sh|sz|bj))")


def benchmark_for(symbol: str) -> Benchmark | None:
    """The benchmark stored under this symbol; None for a stock's six digits."""
    return _BY_KEY.get(symbol)


def exchange_spelling(raw: str) -> tuple[str, str] | None:
    """(exchange, six digits) of a code written with its exchange (SH000300, 000300.SH,
    sh.000300); None for anything else, a bare code included."""
    found = _PREFIXED.fullmatch(unicodedata.normalize("NFKC", raw).strip().lower())
    if found is None:
        return None
    exchange, code, suffixed_code, suffix = found.groups()
    return (exchange, code) if exchange else (suffix, suffixed_code)


def benchmark_spelled(raw: str) -> Benchmark | None:
    """The benchmark named by its exchange and code in any spelling, or by its name."""
    spelled = exchange_spelling(raw)
    if spelled:
        return _BY_KEY.get("".join(spelled))
    return _BY_NAME.get(unicodedata.normalize("NFKC", raw).strip().lower())


def benchmark_with_code(code: str) -> Benchmark | None:
    """The benchmark whose bare six digits these are (000300, 399006)."""
    return next((b for b in BENCHMARKS if b.code == code), None)


def benchmark_list() -> str:
    """The benchmarks as a user reads them: 沪深300（sh000300）、…"""
    return "、".join(f"{b.name}（{b.key}）" for b in BENCHMARKS)
