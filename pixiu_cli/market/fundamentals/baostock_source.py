"""Fundamentals from baostock (the `baostock` extra), through the same login, timeout and
paging as its bars (`BaostockSource._rows`).

What it gives, as its ResultData rows of text:
- the daily k-data's valuation fields `peTTM`, `pbMRQ`, `psTTM`, `pcfNcfTTM` beside `close`
  (a suspended day repeats the last close: left out, as for bars);
- per quarter: `query_profit_data` (pubDate, statDate, roeAvg, npMargin, gpMargin as fractions,
  netProfit and MBRevenue in yuan, epsTTM, totalShare, liqaShare), `query_growth_data`
  (YOYNI, YOYPNI … as fractions), `query_balance_data` (liabilityToAsset …),
  `query_cash_flow_data` (CFOToNP …);
- `query_dividend_data` by the plan's year (dividPlanAnnounceDate, dividOperateDate,
  dividPayDate, dividCashPsBeforeTax, dividStocksPs, dividReserveToStockPs, dividCashStock);
- `query_forecast_report` (profitForcastType, profitForcastAbstract, the range of net profit
  growth in percent) and `query_performance_express_report` (performanceExpPubDate, …StatDate).
Revenue growth is not among them; it is computed from two stored periods a year apart."""

from __future__ import annotations

from pixiu_cli.market.baostock_source import UNADJUSTED, BaostockSource
from pixiu_cli.market.fundamentals.model import (
    EXPRESS,
    FORECAST,
    Dividend,
    FinancialReport,
    ReportNotice,
    ValuationDay,
    decimal_of,
    quarter_of,
)
from pixiu_cli.market.sources import exchange_code

VALUATION_FIELDS = "date,close,peTTM,pbMRQ,psTTM,pcfNcfTTM,tradestatus"
NAME = "baostock"


number = decimal_of  # a field's text: "" (no figure) is None


def day(value) -> str | None:
    text = str(value or "").strip()[:10]
    return text if len(text) == 10 and text[4] == "-" and text[7] == "-" else None


class BaostockFundamentals:
    name = NAME

    def __init__(self, timeout: float = 20.0, module=None, source: BaostockSource | None = None):
        self._source = source or BaostockSource(timeout=timeout, module=module)

    def _code(self, symbol: str) -> str:
        return f"{exchange_code(symbol)}.{symbol}"

    def valuations(self, symbol: str, start: str, end: str) -> list[ValuationDay]:
        rows = self._source._rows(
            "估值查询",
            lambda bs: bs.query_history_k_data_plus(
                self._code(symbol),
                VALUATION_FIELDS,
                start_date=start,
                end_date=end,
                frequency="d",
                adjustflag=UNADJUSTED,
            ),
        )
        out = []
        for r in rows:
            if r.get("tradestatus") == "0" or not day(r.get("date")):
                continue
            out.append(
                ValuationDay(
                    symbol,
                    r["date"],
                    NAME,
                    number(r.get("close")),
                    number(r.get("peTTM")),
                    number(r.get("pbMRQ")),
                    number(r.get("psTTM")),
                    number(r.get("pcfNcfTTM")),
                )
            )
        return out

    def _quarter(self, what: str, query: str, symbol: str, period: str) -> dict[str, str]:
        year, quarter = quarter_of(period)
        rows = self._source._rows(
            what, lambda bs: getattr(bs, query)(code=self._code(symbol), year=year, quarter=quarter)
        )
        return rows[-1] if rows else {}

    def report(self, symbol: str, period: str) -> FinancialReport | None:
        """The period's summary, or None when the company has not published it."""
        profit = self._quarter("盈利能力查询", "query_profit_data", symbol, period)
        if not day(profit.get("statDate")):
            return None
        growth = self._quarter("成长能力查询", "query_growth_data", symbol, period)
        balance = self._quarter("偿债能力查询", "query_balance_data", symbol, period)
        cash = self._quarter("现金流量查询", "query_cash_flow_data", symbol, period)
        return FinancialReport(
            symbol,
            profit["statDate"],
            NAME,
            published=day(profit.get("pubDate")),
            revenue=number(profit.get("MBRevenue")),
            net_profit=number(profit.get("netProfit")),
            net_profit_yoy=number(growth.get("YOYNI")),
            roe=number(profit.get("roeAvg")),
            gross_margin=number(profit.get("gpMargin")),
            net_margin=number(profit.get("npMargin")),
            debt_ratio=number(balance.get("liabilityToAsset")),
            cfo_to_profit=number(cash.get("CFOToNP")),
            eps_ttm=number(profit.get("epsTTM")),
            total_shares=number(profit.get("totalShare")),
            float_shares=number(profit.get("liqaShare")),
        )

    def reports(self, symbol: str, periods: list[str]) -> list[FinancialReport]:
        return [r for p in periods if (r := self.report(symbol, p)) is not None]

    def dividends(self, symbol: str, years: list[int]) -> list[Dividend]:
        out = []
        for year in years:
            rows = self._source._rows(
                "分红查询",
                lambda bs, y=year: bs.query_dividend_data(code=self._code(symbol), year=str(y), yearType="report"),
            )
            for r in rows:
                out.append(
                    Dividend(
                        symbol,
                        NAME,
                        announced=day(r.get("dividPlanAnnounceDate")),
                        ex_date=day(r.get("dividOperateDate")),
                        pay_date=day(r.get("dividPayDate")),
                        cash=number(r.get("dividCashPsBeforeTax")),
                        bonus_shares=number(r.get("dividStocksPs")),
                        transfer_shares=number(r.get("dividReserveToStockPs")),
                        summary=(r.get("dividCashStock") or "").strip() or None,
                    )
                )
        return out

    def notices(self, symbol: str, start: str, end: str) -> list[ReportNotice]:
        code = self._code(symbol)
        forecasts = self._source._rows(
            "业绩预告查询", lambda bs: bs.query_forecast_report(code, start_date=start, end_date=end)
        )
        express = self._source._rows(
            "业绩快报查询", lambda bs: bs.query_performance_express_report(code, start_date=start, end_date=end)
        )
        out = []
        for r in forecasts:
            if period := day(r.get("profitForcastExpStatDate")):
                kind = (r.get("profitForcastType") or "").strip()
                abstract = (r.get("profitForcastAbstract") or "").strip()
                summary = "：".join(p for p in (kind, abstract) if p) or None
                low, high = number(r.get("profitForcastChgPctDwn")), number(r.get("profitForcastChgPctUp"))
                out.append(
                    ReportNotice(
                        symbol,
                        period,
                        FORECAST,
                        NAME,
                        day(r.get("profitForcastExpPubDate")),
                        summary,
                        low / 100 if low is not None else None,  # the source's range is in percent
                        high / 100 if high is not None else None,
                    )
                )
        for r in express:
            if period := day(r.get("performanceExpStatDate")):
                out.append(ReportNotice(symbol, period, EXPRESS, NAME, day(r.get("performanceExpPubDate"))))
        return out

    def close(self) -> None:
        self._source.close()
