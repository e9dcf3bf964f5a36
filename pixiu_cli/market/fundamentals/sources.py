"""One stock's stored fundamentals, read and derived locally: the newest valuation day with
its PE and PB percentiles over the stock's own stored history (近五年分位), its market value
(the source's, else the close times the newest report's share count), the dividend yield of
the last year's cash, the newest report period, the dividends and notices, and the next
report with its legal deadline (the summary goes stale once that deadline has passed)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from pixiu_cli.market.fundamentals.model import (
    PERCENTILE_YEARS,
    Dividend,
    FinancialReport,
    Percentile,
    ReportNotice,
    ValuationDay,
    market_value,
    next_period,
    percentile,
    period_deadline,
    share_ratio,
    trailing_cash,
)
from pixiu_cli.market.fundamentals.store import FundamentalsStore


@dataclass(frozen=True)
class MarketValue:
    total: Decimal | None
    floating: Decimal | None
    computed: bool  # the close times the report's share count, not the source's own figure
    share_ratio: Decimal = Decimal(1)  # the 送转 since the report's period: its count × this


@dataclass(frozen=True)
class DividendYield:
    cash: Decimal  # per share of the valuation day, before tax, ex-dates in the year up to it
    payments: int
    adjusted: bool  # a 送转 since a payment divided its cash over the shares it became
    close: Decimal
    value: Decimal


@dataclass(frozen=True)
class StockFundamentals:
    symbol: str
    valuation: ValuationDay | None
    pe: Percentile | None
    pb: Percentile | None
    value: MarketValue | None
    dividend_yield: DividendYield | None
    reports: tuple[FinancialReport, ...]  # newest first
    dividends: tuple[Dividend, ...]
    notices: tuple[ReportNotice, ...]
    sync: dict | None  # the stock's fundamentals_sync row

    @property
    def latest(self) -> FinancialReport | None:
        return self.reports[0] if self.reports else None

    @property
    def empty(self) -> bool:
        return self.valuation is None and not self.reports and not self.dividends

    @property
    def next_report(self) -> tuple[str, date] | None:
        """The next period after the newest stored one, and its report's legal deadline."""
        if self.latest is None:
            return None
        upcoming = next_period(self.latest.period)
        return upcoming, period_deadline(upcoming)

    def overdue(self, today: date) -> bool:
        """The next report's deadline has passed and it is not stored: the summary is old."""
        upcoming = self.next_report
        return upcoming is not None and today > upcoming[1]


def _market_value(day: ValuationDay, report: FinancialReport | None, dividends: list[Dividend]) -> MarketValue | None:
    """The source's figure, else the close times the report's share count grown by every 送转
    with an ex-date after the report's period (a 转增 after it is not in its count)."""
    if day.total_mv is not None or day.float_mv is not None:
        return MarketValue(day.total_mv, day.float_mv, False)
    if report is None:
        return None
    grown = share_ratio(dividends, report.period, day.date)

    def now_shares(count: Decimal | None) -> Decimal | None:
        return count * grown if count is not None else None

    total = market_value(day.close, now_shares(report.total_shares))
    floating = market_value(day.close, now_shares(report.float_shares))
    return MarketValue(total, floating, True, grown) if total is not None or floating is not None else None


def _yield(day: ValuationDay, dividends: list[Dividend]) -> DividendYield | None:
    if day.close is None or day.close <= 0:
        return None
    paid = trailing_cash(dividends, day.date)
    return DividendYield(paid.per_share, paid.payments, paid.adjusted, day.close, paid.per_share / day.close)


def _shares_report(reports: list[FinancialReport], on: str) -> FinancialReport | None:
    """The newest report published by the valuation day (its share count was known then)."""
    known = [r for r in reports if r.total_shares is not None and (r.published or r.period) <= on]
    return known[0] if known else None


def read_fundamentals(store: FundamentalsStore, symbol: str, report_limit: int = 8) -> StockFundamentals:
    reports = store.reports(symbol, report_limit)
    dividends = store.dividends(symbol)
    last = store.last_valuation_date(symbol)
    days: list[ValuationDay] = []
    if last:
        start = (date.fromisoformat(last) - timedelta(days=round(365.25 * PERCENTILE_YEARS) + 1)).isoformat()
        days = store.valuations(symbol, start)
    newest = days[-1] if days else None
    return StockFundamentals(
        symbol,
        newest,
        percentile([(d.date, d.pe_ttm) for d in days]) if days else None,
        percentile([(d.date, d.pb_mrq) for d in days]) if days else None,
        _market_value(newest, _shares_report(reports, newest.date), dividends) if newest else None,
        _yield(newest, dividends) if newest else None,
        tuple(reports),
        tuple(dividends),
        tuple(store.notices(symbol)),
        store.sync_state(symbol),
    )
