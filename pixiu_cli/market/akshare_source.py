"""akshare (`pip install 'pixiu-cli[akshare]'`, version pinned in pyproject), the fallback.

Bars come from the Sina endpoint `stock_zh_a_daily` first (English columns, volume in
shares); Eastmoney's `stock_zh_a_hist` (Chinese columns, volume in 手) is tried only when
Sina fails, because Eastmoney bans IPs that call it often. Dividends come from
`stock_history_dividend_detail` (per 10 shares, Chinese columns). Frames are read through
`to_dict("records")` only, so any DataFrame-like object works."""

from __future__ import annotations

import math
import unicodedata
from datetime import date, datetime

from pixiu_cli.market.bars import Bar, CorporateAction, benchmark_for
from pixiu_cli.market.securities import Security, board_for
from pixiu_cli.market.sources import CallTimeout, SourceError, call_with_timeout, exchange_code

_BAR_KEYS = {
    "date": ("date", "日期"),
    "open": ("open", "开盘"),
    "high": ("high", "最高"),
    "low": ("low", "最低"),
    "close": ("close", "收盘"),
    "volume": ("volume", "成交量"),
    "amount": ("amount", "成交额"),
}


# stock_info_a_code_name's columns, and the exchange lists' own (SSE 证券代码 / 证券简称,
# SZSE A股代码 / A股简称) it renames them from.
_CODE_KEYS = ("code", "证券代码", "A股代码")
_NAME_KEYS = ("name", "证券简称", "A股简称")


def _field(record: dict, keys: tuple[str, ...]):
    return next((record[k] for k in keys if k in record), None)


def _value(record: dict, field: str):
    for key in _BAR_KEYS[field]:
        if key in record:
            return record[key]
    return None


def _num(value) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def akshare_day(value) -> str | None:
    # akshare converts dates with `pd.to_datetime(..., errors="coerce").dt.date`, so a plan
    # row (预案, 不分配) holds pandas' NaT: a datetime subclass whose strftime raises and
    # which, like NaN, is not equal to itself.
    if value is None or value != value:
        return None
    if isinstance(value, datetime | date):
        return value.strftime("%Y-%m-%d")
    text = str(value).strip()[:10]
    if len(text) == 8 and text.isdigit():
        text = f"{text[:4]}-{text[4:6]}-{text[6:]}"
    return text if len(text) == 10 and text[4] == "-" else None


def frame_to_bars(frame, volume_in_lots: bool) -> list[Bar]:
    bars = []
    for record in frame.to_dict("records"):
        day = akshare_day(_value(record, "date"))
        prices = [_num(_value(record, k)) for k in ("open", "high", "low", "close")]
        volume = _num(_value(record, "volume"))
        if day is None or None in prices or prices[3] <= 0 or not volume:
            continue  # no trade that day: never store an invented bar
        bars.append(Bar(day, *prices, volume * (100 if volume_in_lots else 1), _num(_value(record, "amount"))))
    return sorted(bars, key=lambda b: b.date)


class AkshareSource:
    name = "akshare"
    lists_with_bars = False

    def __init__(self, timeout: float = 30.0, module=None):
        self.timeout = timeout
        self._ak = module

    def _module(self):
        if self._ak is None:
            try:
                import akshare
            except ImportError:
                raise SourceError("akshare 未安装：pip install 'pixiu-cli[akshare]'") from None
            self._ak = akshare
        return self._ak

    def _call(self, what: str, fn):
        ak = self._module()
        try:
            return call_with_timeout(lambda: fn(ak), self.timeout)
        except CallTimeout as exc:
            raise SourceError(f"akshare {what}：{exc}") from None
        except Exception as exc:  # requests / parsing errors of the scraped endpoint
            raise SourceError(f"akshare {what}：{type(exc).__name__} {str(exc)[:120]}") from None

    def daily_bars(self, symbol: str, start: str, end: str) -> list[Bar]:
        if benchmark_for(symbol):  # Sina's index endpoint takes the prefixed code and returns all history
            frame = self._call("新浪指数日线", lambda ak: ak.stock_zh_index_daily(symbol=symbol))
            return [b for b in frame_to_bars(frame, volume_in_lots=False) if start <= b.date <= end]
        s, e = start.replace("-", ""), end.replace("-", "")
        try:
            frame = self._call(
                "新浪日线",
                lambda ak: ak.stock_zh_a_daily(
                    symbol=f"{exchange_code(symbol)}{symbol}", start_date=s, end_date=e, adjust=""
                ),
            )
            return frame_to_bars(frame, volume_in_lots=False)
        except SourceError as sina_error:
            try:
                frame = self._call(
                    "东方财富日线",
                    lambda ak: ak.stock_zh_a_hist(symbol=symbol, period="daily", start_date=s, end_date=e, adjust=""),
                )
            except SourceError as em_error:
                raise SourceError(f"{sina_error}；{em_error}") from None
            return frame_to_bars(frame, volume_in_lots=True)

    def actions(self, symbol: str, start: str, end: str) -> list[CorporateAction]:
        if benchmark_for(symbol):
            return []
        frame = self._call("分红送转", lambda ak: ak.stock_history_dividend_detail(symbol=symbol, indicator="分红"))
        out = {}
        for r in frame.to_dict("records"):
            day = akshare_day(r.get("除权除息日"))
            if day is None or (r.get("进度") not in (None, "实施")) or not (start <= day <= end):
                continue
            cash = (_num(r.get("派息")) or 0.0) / 10  # the table is per 10 shares
            shares = ((_num(r.get("送股")) or 0.0) + (_num(r.get("转增")) or 0.0)) / 10
            if cash or shares:
                out[day] = CorporateAction(symbol, day, cash, shares, None, self.name, "cash_shares")
        return [out[d] for d in sorted(out)]

    def trading_days(self, start: str, end: str) -> list[str]:
        frame = self._call("交易日历", lambda ak: ak.tool_trade_date_hist_sina())
        days = (akshare_day(r.get("trade_date")) for r in frame.to_dict("records"))
        return [d for d in days if d and start <= d <= end]

    def securities(self) -> list[Security]:
        """`stock_info_a_code_name`: the three exchanges' own lists (SSE, SZSE, BSE), joined
        by akshare into code and name; the exchanges' names carry full-width letters and
        padding (万  科Ａ), taken out here."""
        frame = self._call("证券列表", lambda ak: ak.stock_info_a_code_name())
        out = []
        for record in frame.to_dict("records"):
            symbol = str(_field(record, _CODE_KEYS) or "").strip()
            name = "".join(unicodedata.normalize("NFKC", str(_field(record, _NAME_KEYS) or "")).split())
            if len(symbol) == 6 and symbol.isascii() and symbol.isdigit() and name:
                out.append(Security(symbol, name, "stock", board_for(symbol), None, "listed", "ST" in name, self.name))
        return out

    def close(self) -> None:
        pass
