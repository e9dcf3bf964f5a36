"""Fundamentals from akshare (the `akshare` extra, version pinned in pyproject).

- `stock_value_em(symbol)`: Eastmoney's valuation history, one row a session: 数据日期 (a
  date), 当日收盘价, 总市值 and 流通市值 (yuan), 总股本, 流通股本, PE(TTM), PE(静), 市净率,
  PEG值, 市现率, 市销率 (numbers, NaN where missing).
- `stock_financial_abstract(symbol)`: Sina's key indicators, wide: 选项, 指标, then one column
  per report period named YYYYMMDD, newest first. Amounts (营业总收入, 归母净利润,
  经营现金流量净额) are in yuan; rates (净资产收益率(ROE), 毛利率, 销售净利率, 资产负债率,
  营业总收入增长率, 归属母公司净利润增长率) in percent. It gives no publication day.
- `stock_history_dividend_detail(symbol, indicator="分红")`: 公告日期, 送股, 转增, 派息 (per 10
  shares), 进度, 除权除息日 (NaT for a plan), 股权登记日.
Frames are read through `to_dict("records")` (and `columns`) only."""

from __future__ import annotations

import math
from datetime import date, datetime
from decimal import Decimal

from pixiu_cli.market.akshare_source import AkshareSource, akshare_day
from pixiu_cli.market.fundamentals.baostock_source import number
from pixiu_cli.market.fundamentals.model import Dividend, FinancialReport, ValuationDay

NAME = "akshare"
_HUNDRED = Decimal(100)
_TEN = Decimal(10)


def akshare_decimal(value) -> Decimal | None:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return number(repr(value) if isinstance(value, float) else value)


def akshare_rate(value) -> Decimal | None:
    parsed = akshare_decimal(value)
    return parsed / _HUNDRED if parsed is not None else None


def _period(column) -> str | None:
    text = str(column).strip()
    return f"{text[:4]}-{text[4:6]}-{text[6:]}" if len(text) == 8 and text.isdigit() else None


class AkshareFundamentals:
    name = NAME

    def __init__(self, timeout: float = 30.0, module=None):
        self._source = AkshareSource(timeout=timeout, module=module)

    def valuations(self, symbol: str, start: str, end: str) -> list[ValuationDay]:
        frame = self._source._call("东方财富估值", lambda ak: ak.stock_value_em(symbol=symbol))
        out = []
        for r in frame.to_dict("records"):
            when = r.get("数据日期")
            shown = when.isoformat() if isinstance(when, date | datetime) else akshare_day(when)
            if not shown or not (start <= shown[:10] <= end):
                continue
            out.append(
                ValuationDay(
                    symbol,
                    shown[:10],
                    NAME,
                    akshare_decimal(r.get("当日收盘价")),
                    akshare_decimal(r.get("PE(TTM)")),
                    akshare_decimal(r.get("市净率")),
                    akshare_decimal(r.get("市销率")),
                    akshare_decimal(r.get("市现率")),
                    akshare_decimal(r.get("总市值")),
                    akshare_decimal(r.get("流通市值")),
                )
            )
        return out

    def reports(self, symbol: str, periods: list[str]) -> list[FinancialReport]:
        frame = self._source._call("新浪关键指标", lambda ak: ak.stock_financial_abstract(symbol=symbol))
        by_name: dict[str, dict] = {}
        for r in frame.to_dict("records"):
            by_name.setdefault(str(r.get("指标")), r)  # the first row of a name (常用指标) wins
        wanted = set(periods)
        out = []
        for column in list(frame.columns)[2:]:
            period = _period(column)
            if period is None or period not in wanted:
                continue

            def cell(name: str, column=column):
                return by_name.get(name, {}).get(column)

            if akshare_decimal(cell("营业总收入")) is None and akshare_decimal(cell("归母净利润")) is None:
                continue  # a period the company has not reported
            out.append(
                FinancialReport(
                    symbol,
                    period,
                    NAME,
                    revenue=akshare_decimal(cell("营业总收入")),
                    revenue_yoy=akshare_rate(cell("营业总收入增长率")),
                    net_profit=akshare_decimal(cell("归母净利润")),
                    net_profit_yoy=akshare_rate(cell("归属母公司净利润增长率")),
                    roe=akshare_rate(cell("净资产收益率(ROE)")),
                    gross_margin=akshare_rate(cell("毛利率")),
                    net_margin=akshare_rate(cell("销售净利率")),
                    debt_ratio=akshare_rate(cell("资产负债率")),
                    operating_cash_flow=akshare_decimal(cell("经营现金流量净额")),
                )
            )
        return out

    def dividends(self, symbol: str, years: list[int]) -> list[Dividend]:
        frame = self._source._call(
            "分红送转", lambda ak: ak.stock_history_dividend_detail(symbol=symbol, indicator="分红")
        )
        first = min(years) if years else 0
        out = []
        for r in frame.to_dict("records"):
            announced = akshare_day(r.get("公告日期"))
            if announced is None or int(announced[:4]) < first:
                continue
            cash, bonus, transfer = (akshare_decimal(r.get(k)) for k in ("派息", "送股", "转增"))
            progress = r.get("进度")
            out.append(
                Dividend(
                    symbol,
                    NAME,
                    announced=announced,
                    ex_date=akshare_day(r.get("除权除息日")),
                    cash=cash / _TEN if cash is not None else None,  # the table is per 10 shares
                    bonus_shares=bonus / _TEN if bonus is not None else None,
                    transfer_shares=transfer / _TEN if transfer is not None else None,
                    summary=str(progress).strip() if isinstance(progress, str) and progress.strip() else None,
                )
            )
        return out

    def notices(self, symbol: str, start: str, end: str) -> list:
        return []  # the pinned akshare's forecasts are whole-market queries by period: not asked for per stock

    def close(self) -> None:
        pass
