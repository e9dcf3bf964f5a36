"""baostock (`pip install 'pixiu-cli[baostock]'`): no token; unadjusted daily bars with
tradestatus and isST, adjustment factors, dividends, trading dates and the stock list.
Every call goes through call_with_timeout: baostock's socket has no timeout of its own."""

from __future__ import annotations

import io
import math
import sys

from pixiu_cli.market.bars import Bar, CorporateAction, benchmark_for
from pixiu_cli.market.securities import Security, board_for
from pixiu_cli.market.sources import CallTimeout, SourceError, call_with_timeout, exchange_code

BAR_FIELDS = "date,open,high,low,close,volume,amount,tradestatus,isST"
INDEX_FIELDS = "date,open,high,low,close,volume,amount"  # an index has no trade status or ST flag
UNADJUSTED = "3"  # baostock's adjustflag: 1 hfq, 2 qfq, 3 none


def _float(text: str) -> float | None:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _next_page_lost(rs) -> bool:
    """baostock's next() returns False at the end and also when asking for the next page
    failed: its send_msg swallows the socket's exception and returns None. The two differ
    in the page left behind: a real end leaves a short (or empty) page, a lost request the
    full page before it."""
    data = getattr(rs, "data", None)
    try:
        per_page = int(getattr(rs, "per_page_count", 0))
    except (TypeError, ValueError):
        return False
    return isinstance(data, list) and per_page > 0 and len(data) == per_page


class BaostockSource:
    name = "baostock"
    lists_with_bars = True

    def __init__(self, timeout: float = 20.0, module=None):
        self.timeout = timeout
        self._bs = module
        self._logged_in = False

    def _module(self):
        if self._bs is None:
            try:
                import baostock
            except ImportError:
                raise SourceError("baostock 未安装：pip install 'pixiu-cli[baostock]'") from None
            self._bs = baostock
        return self._bs

    def _call(self, what: str, fn):
        # baostock prints "login success!" and the like to stdout, which would corrupt
        # pixiu's output: the call runs with stdout swallowed, restored here even when the
        # call is abandoned on a timeout (the renderer holds the real stdout already).
        real_stdout = sys.stdout

        def quiet():
            sys.stdout = io.StringIO()
            return fn()

        try:
            return call_with_timeout(quiet, self.timeout)
        except CallTimeout as exc:
            raise SourceError(f"baostock {what}：{exc}") from None
        except SourceError:
            raise
        except Exception as exc:  # the library raises whatever its socket raised
            raise SourceError(f"baostock {what}：{type(exc).__name__} {exc}") from None
        finally:
            sys.stdout = real_stdout

    def _rows(self, what: str, fn) -> list[dict[str, str]]:
        """Runs a query (logging in first) and reads its ResultData to the end, all under
        the timeout; a non-zero error_code becomes a SourceError."""
        bs = self._module()
        if not self._logged_in:
            login = self._call("登录", bs.login)
            if getattr(login, "error_code", "0") != "0":
                raise SourceError(f"baostock 登录失败：{login.error_msg}")
            self._logged_in = True

        def run():
            rs = fn(bs)
            if rs.error_code != "0":
                raise SourceError(f"baostock {what}失败：{rs.error_msg}")
            rows = []
            while rs.next():
                rows.append(dict(zip(rs.fields, rs.get_row_data())))
            if _next_page_lost(rs):
                reason = f"：{rs.error_msg}" if rs.error_code != "0" else ""
                raise SourceError(
                    f"baostock {what}：第 {rs.cur_page_num} 页之后的数据没有取到（已取 {len(rows)} 行），结果不完整{reason}"
                )
            return rows

        return self._call(what, run)

    def daily_bars(self, symbol: str, start: str, end: str) -> list[Bar]:
        index = benchmark_for(symbol)
        code = f"{index.exchange}.{index.code}" if index else f"{exchange_code(symbol)}.{symbol}"
        fields = INDEX_FIELDS if index else BAR_FIELDS
        rows = self._rows(
            "日线查询",
            lambda bs: bs.query_history_k_data_plus(
                code, fields, start_date=start, end_date=end, frequency="d", adjustflag=UNADJUSTED
            ),
        )
        bars = []
        for r in rows:
            prices = [_float(r.get(k)) for k in ("open", "high", "low", "close")]
            if r.get("tradestatus") == "0" or None in prices or prices[3] <= 0:
                continue  # a suspended day: baostock repeats the last close; no bar is invented
            bars.append(
                Bar(
                    r["date"], *prices, _float(r.get("volume")) or 0.0, _float(r.get("amount")), 1, r.get("isST") == "1"
                )
            )
        return bars

    def actions(self, symbol: str, start: str, end: str) -> list[CorporateAction]:
        """Ratios from the cumulative back-adjust factor, cash and shares from the dividend
        table, merged per ex-date. An index has none."""
        if benchmark_for(symbol):
            return []
        code = f"{exchange_code(symbol)}.{symbol}"
        factors = self._rows(
            "复权因子查询", lambda bs: bs.query_adjust_factor(code=code, start_date="1990-01-01", end_date=end)
        )
        ratios, previous = {}, 1.0
        for r in factors:
            back = _float(r.get("backAdjustFactor"))
            if back:
                ratios[r["dividOperateDate"]] = back / previous
                previous = back
        events: dict[str, tuple[float, float]] = {}
        for year in range(int(start[:4]), int(end[:4]) + 1):
            for r in self._rows(
                "分红送转查询", lambda bs, y=year: bs.query_dividend_data(code=code, year=str(y), yearType="operate")
            ):
                day = r.get("dividOperateDate") or ""
                if not day:
                    continue
                cash = _float(r.get("dividCashPsBeforeTax")) or 0.0
                shares = (_float(r.get("dividStocksPs")) or 0.0) + (_float(r.get("dividReserveToStockPs")) or 0.0)
                events[day] = (cash, shares)
        out = []
        for day in sorted(set(ratios) | set(events)):
            if not (start <= day <= end) and day not in ratios:
                continue
            cash, shares = events.get(day, (0.0, 0.0))
            method = "cash_shares" if day in events else "factor"
            out.append(CorporateAction(symbol, day, cash, shares, ratios.get(day), self.name, method))
        return out

    def trading_days(self, start: str, end: str) -> list[str]:
        rows = self._rows("交易日查询", lambda bs: bs.query_trade_dates(start_date=start, end_date=end))
        return [r["calendar_date"] for r in rows if r.get("is_trading_day") == "1"]

    def securities(self) -> list[Security]:
        rows = self._rows("证券列表查询", lambda bs: bs.query_stock_basic())
        out = []  # stamped by refresh_master, with the time of the sync
        for r in rows:
            symbol = (r.get("code") or "")[-6:]
            # stocks only: index codes reuse stock digits (sh.000001 上证指数 vs sz.000001 平安银行)
            if not symbol.isdigit() or r.get("type") != "1":
                continue
            name = r.get("code_name") or symbol
            out.append(
                Security(
                    symbol,
                    name,
                    "stock",
                    board_for(symbol),
                    r.get("ipoDate") or None,
                    "listed" if r.get("status") == "1" else "delisted",
                    "ST" in name,
                    self.name,
                )
            )
        return out

    def close(self) -> None:
        if self._logged_in and self._bs is not None:
            try:
                call_with_timeout(self._bs.logout, min(self.timeout, 5))
            except Exception:  # logging out of a dead connection: nothing left to do
                pass
            self._logged_in = False
