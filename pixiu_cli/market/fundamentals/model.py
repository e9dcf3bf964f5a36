"""A company's fundamentals as stored facts: daily valuation (PE TTM, PB, PS, market value),
the financial summary of each report period, dividends and the notices that precede a
report (业绩预告, 业绩快报). Every figure keeps its source, its period and the day it was
published; what pixiu derives from them (percentiles over the stock's own history, the
dividend yield, a market value from a close and a share count) is computed here, in
`Decimal`, never by the model.

Units: amounts in yuan, ratios as fractions (0.2345 for 23.45%), shares as counts. The
sources' own units are converted where they are read (market/fundamentals_*.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

# Quarter ends, their report's name and the legal deadline of that report (month, day; the
# annual report's is in the next year): 一季报 by 04-30, 中报 by 08-31, 三季报 by 10-31,
# 年报 by 04-30 of the next year.
QUARTERS = {"03-31": ("一季报", (4, 30), 0), "06-30": ("中报", (8, 31), 0), "09-30": ("三季报", (10, 31), 0)}
ANNUAL = ("年报", (4, 30), 1)
PERCENTILE_YEARS = 5
MIN_PERCENTILE_DAYS = 60  # fewer stored days than this say nothing about a stock's own range
REFRESH_EVERY = timedelta(days=7)  # inside a reporting window, how often a sync looks again
FORECAST, EXPRESS = "forecast", "express"
NOTICE_NAMES = {FORECAST: "业绩预告", EXPRESS: "业绩快报"}


@dataclass(frozen=True)
class ValuationDay:
    symbol: str
    date: str  # YYYY-MM-DD, a session
    source: str
    close: Decimal | None = None
    pe_ttm: Decimal | None = None
    pb_mrq: Decimal | None = None
    ps_ttm: Decimal | None = None
    pcf_ttm: Decimal | None = None
    total_mv: Decimal | None = None  # yuan, when the source gives it
    float_mv: Decimal | None = None


@dataclass(frozen=True)
class FinancialReport:
    symbol: str
    period: str  # the quarter end it covers, YYYY-MM-DD
    source: str
    published: str | None = None  # the day the report was published (None: the source does not say)
    revenue: Decimal | None = None
    revenue_yoy: Decimal | None = None
    net_profit: Decimal | None = None
    net_profit_yoy: Decimal | None = None
    roe: Decimal | None = None  # of the period (a 中报's ROE covers half a year)
    gross_margin: Decimal | None = None
    net_margin: Decimal | None = None
    debt_ratio: Decimal | None = None
    operating_cash_flow: Decimal | None = None
    cfo_to_profit: Decimal | None = None  # operating cash flow / net profit
    eps_ttm: Decimal | None = None
    total_shares: Decimal | None = None
    float_shares: Decimal | None = None


@dataclass(frozen=True)
class Dividend:
    symbol: str
    source: str
    announced: str | None = None  # the plan's announcement
    ex_date: str | None = None  # None: a plan not yet carried out
    pay_date: str | None = None
    cash: Decimal | None = None  # per share, before tax
    bonus_shares: Decimal | None = None  # 送股 per share
    transfer_shares: Decimal | None = None  # 转增 per share
    summary: str | None = None  # the source's own words (10派27.67元)


@dataclass(frozen=True)
class ReportNotice:
    """A 业绩预告 or 业绩快报: what the company said about a period before its report."""

    symbol: str
    period: str
    kind: str  # forecast | express
    source: str
    published: str | None = None
    summary: str | None = None  # 预增, 扭亏… and the source's abstract
    change_low: Decimal | None = None  # the forecast's range of net profit growth
    change_high: Decimal | None = None


@dataclass(frozen=True)
class FundamentalsWrite:
    """What one fundamentals sync of one stock writes, in one transaction."""

    symbol: str
    source: str
    at: str  # the sync's time
    valuations: tuple[ValuationDay, ...] = ()
    reports: tuple[FinancialReport, ...] = ()
    dividends: tuple[Dividend, ...] = ()
    notices: tuple[ReportNotice, ...] = ()
    reports_fetched: bool = True  # False: only the valuation was asked for (its reports were not due)


def decimal_of(value) -> Decimal | None:
    """The decimal a text spells (a source's field, a stored column); None for None, "", NaN,
    an infinity or anything else."""
    if value is None:
        return None
    try:
        parsed = Decimal(str(value).strip())
    except (InvalidOperation, ValueError):
        return None
    return parsed if parsed.is_finite() else None


# periods -------------------------------------------------------------------------------


def period_name(period: str) -> str:
    """2026-09-30 → 2026 三季报; 2026-12-31 → 2026 年报."""
    year, tail = period[:4], period[5:]
    return f"{year} {QUARTERS.get(tail, ANNUAL)[0]}"


def period_deadline(period: str) -> date:
    """The legal deadline of the report for this period."""
    tail = period[5:]
    _, (month, day), years_on = QUARTERS.get(tail, ANNUAL)
    return date(int(period[:4]) + years_on, month, day)


def next_period(period: str) -> str:
    year, tail = int(period[:4]), period[5:]
    ends = ("03-31", "06-30", "09-30", "12-31")
    if tail == "12-31" or tail not in ends:
        return f"{year + 1}-03-31"
    return f"{year}-{ends[ends.index(tail) + 1]}"


def quarter_of(period: str) -> tuple[int, int]:
    """(year, quarter 1–4) of a quarter end."""
    return int(period[:4]), {"03-31": 1, "06-30": 2, "09-30": 3}.get(period[5:], 4)


def recent_periods(today: date, count: int) -> list[str]:
    """The `count` quarter ends before today, newest first."""
    out, year = [], today.year
    ends = ("12-31", "09-30", "06-30", "03-31")
    while len(out) < count:
        out += [f"{year}-{end}" for end in ends if f"{year}-{end}" < today.isoformat()]
        year -= 1
    return out[:count]


def refresh_due(latest_period: str | None, last_fetch: date | None, today: date) -> bool:
    """Whether a stock's reports are worth asking for again: never fetched; inside the next
    period's reporting window (its quarter has ended) once a week; past that report's
    deadline with it still missing, once more and then weekly. Not every day."""
    if last_fetch is None:
        return True
    waited = today - last_fetch >= REFRESH_EVERY
    if latest_period is None:
        return waited
    upcoming = next_period(latest_period)
    if today.isoformat() <= upcoming:
        return False  # the next period has not even ended
    deadline = period_deadline(upcoming)
    if today <= deadline:
        return waited
    return last_fetch <= deadline or waited


# derived figures -------------------------------------------------------------------------


@dataclass(frozen=True)
class Percentile:
    value: Decimal  # the current figure
    rank: Decimal  # the share of stored days at or below it, 0..1
    days: int  # the stored days it was ranked among
    first: str  # the first of them
    last: str
    full_window: bool  # the stored history covers the whole window

    @property
    def window(self) -> str:
        if self.full_window:
            return f"近{_CN_YEARS.get(PERCENTILE_YEARS, PERCENTILE_YEARS)}年"
        years = Decimal((date.fromisoformat(self.last) - date.fromisoformat(self.first)).days) / Decimal("365.25")
        return f"已存 {years.quantize(Decimal('0.1'), ROUND_HALF_UP)} 年"


_CN_YEARS = {5: "五", 3: "三", 10: "十"}


def percentile(days: Sequence[tuple[str, Decimal | None]], positive_only: bool = True) -> Percentile | None:
    """The newest value's rank among the stored days of the last five years: the share of
    days whose value is at or below it (the newest day included). None with fewer than
    MIN_PERCENTILE_DAYS usable days, or when the newest value is unusable (a loss makes PE
    negative: a rank among losses and profits means nothing)."""
    usable = [(d, v) for d, v in days if v is not None and (v > 0 or not positive_only)]
    if not usable:
        return None
    usable.sort()
    last_day, current = usable[-1]
    if max(d for d, _ in days) != last_day:
        return None  # the newest day has no usable value
    start = (date.fromisoformat(last_day) - timedelta(days=round(365.25 * PERCENTILE_YEARS))).isoformat()
    window = [(d, v) for d, v in usable if d >= start]
    if len(window) < MIN_PERCENTILE_DAYS:
        return None
    at_or_below = sum(1 for _, v in window if v <= current)
    full = date.fromisoformat(window[0][0]) - date.fromisoformat(start) <= timedelta(days=31)
    return Percentile(current, Decimal(at_or_below) / Decimal(len(window)), len(window), window[0][0], last_day, full)


def _by_ex_date(dividends: Sequence[Dividend]) -> dict[str, Dividend]:
    """One record per ex-date: two sources describing the same event count it once."""
    events: dict[str, Dividend] = {}
    for d in dividends:
        if d.ex_date and d.ex_date not in events:
            events[d.ex_date] = d
    return events


def share_ratio(dividends: Sequence[Dividend], after: str, through: str) -> Decimal:
    """What one share became through the 送转 with an ex-date after `after`, up to `through`:
    the product of 1 + 送股 + 转增 per share (2 after a 10转10)."""
    ratio = Decimal(1)
    for ex_date, d in _by_ex_date(dividends).items():
        if after < ex_date <= through:
            ratio *= 1 + (d.bonus_shares or 0) + (d.transfer_shares or 0)
    return ratio


@dataclass(frozen=True)
class TrailingCash:
    per_share: Decimal  # per share of `on`, before tax
    payments: int
    adjusted: bool  # a 送转 since a payment: its cash is divided over the shares it became


def trailing_cash(dividends: Sequence[Dividend], on: str) -> TrailingCash:
    """Cash per share of the day `on` (before tax) with an ex-date in the year up to it. A
    payment was made on the shares registered the day before its ex-date: a 送转 on that
    ex-date or later turned each of them into more shares, so it counts divided by that
    ratio (10派2送3 on one day: 0.2 / 1.3 a share of today)."""
    start = (date.fromisoformat(on) - timedelta(days=365)).isoformat()
    cash, payments, adjusted = Decimal(0), 0, False
    for ex_date, d in _by_ex_date(dividends).items():
        if not (start < ex_date <= on and d.cash):
            continue
        ratio = share_ratio(dividends, (date.fromisoformat(ex_date) - timedelta(days=1)).isoformat(), on)
        cash += d.cash / ratio
        payments += 1
        adjusted = adjusted or ratio != 1
    return TrailingCash(cash, payments, adjusted)


def market_value(close: Decimal | None, shares: Decimal | None) -> Decimal | None:
    return close * shares if close is not None and shares is not None else None
