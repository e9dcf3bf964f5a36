"""Fundamentals (`pixiu fundamentals CODE`, `pixiu data sync --fundamentals`, the daily
sync's refresh of what is due): sync them from baostock or akshare, read one stock's as
stored and derived, and the JSON of `--json` — every figure with its period (or day) and
source."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING

from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.market.analytics.service import held_and_watched
from pixiu_cli.market.fundamentals.model import period_name
from pixiu_cli.market.fundamentals.sources import StockFundamentals, read_fundamentals
from pixiu_cli.market.trading_days import as_shanghai

if TYPE_CHECKING:
    from pixiu_cli.market.handle import Market

FUNDAMENTALS_SOURCES = ("baostock", "akshare")


@dataclass(frozen=True)
class FundamentalsRequest:
    symbols: list[str]  # empty: the holdings and the watch list
    source: str = "baostock"
    timeout: float = 20.0


@dataclass(frozen=True)
class FundamentalsResult:
    source: str
    outcomes: list  # market/fundamentals_sync.py FundamentalsOutcome

    @property
    def failed(self) -> list:
        return [o for o in self.outcomes if o.error]


def open_fundamentals(name: str, timeout: float, module=None):
    if name == "baostock":
        from pixiu_cli.market.fundamentals.baostock_source import BaostockFundamentals

        return BaostockFundamentals(timeout=timeout, module=module)
    if name == "akshare":
        from pixiu_cli.market.fundamentals.akshare_source import AkshareFundamentals

        return AkshareFundamentals(timeout=timeout, module=module)
    raise RequestError(f"未知数据源 {name!r}（可选：{'、'.join(FUNDAMENTALS_SOURCES)}）")


def fundamentals_targets(market: Market, symbols: list[str]) -> list[str]:
    targets = symbols or held_and_watched(market)
    if not targets:
        raise RequestError(
            "没有要同步基本面的股票：持仓和自选股都为空（可指定代码：pixiu data sync --fundamentals 600519）"
        )
    return targets


def _run(
    market: Market, symbols: list[str], source_name: str, timeout: float, now: datetime, force: bool, on_symbol, module
):
    from pixiu_cli.market.fundamentals.sync import stored_closes
    from pixiu_cli.market.fundamentals.sync import sync_fundamentals as run

    source = open_fundamentals(source_name, timeout, module)
    try:
        outcomes = run(
            market.fundamentals, source, symbols, as_shanghai(now), force=force, on_symbol=on_symbol,
            closes=stored_closes(market.bars),
        )  # fmt: skip
    finally:
        source.close()
    return FundamentalsResult(source_name, outcomes)


def sync_fundamentals(
    market: Market, request: FundamentalsRequest, now: datetime, on_symbol: Callable = lambda o: None, module=None
) -> FundamentalsResult:
    """Every stock asked for: its valuation since the last stored day, and its reports, dividends
    and notices (asked for again whether due or not). `module`: a stand-in library (tests)."""
    targets = fundamentals_targets(market, request.symbols)
    return _run(market, targets, request.source, request.timeout, now, True, on_symbol, module)


def refresh_due(market: Market, source: str, timeout: float, now: datetime, module=None) -> FundamentalsResult | None:
    """The daily sync's part: the stocks whose fundamentals are kept get their new valuation
    days, and their reports only when a new period is due. None when none are kept."""
    kept = market.fundamentals.kept()
    if not kept:
        return None
    return _run(market, kept, source, timeout, now, False, lambda o: None, module)


def stock_fundamentals(market: Market, symbol: str) -> tuple[StockFundamentals, str | None]:
    """What is stored of one stock's fundamentals, and the stock's name."""
    from pixiu_cli.market.names.table import NameSource

    name = NameSource(market.securities).security_name(symbol)
    return read_fundamentals(market.fundamentals, symbol), name


# JSON ----------------------------------------------------------------------------------


def _num(value) -> float | None:
    return None if value is None else float(value)


def _percentile(p) -> dict | None:
    if p is None:
        return None
    return {"rank": round(float(p.rank), 4), "window": p.window, "days": p.days, "first": p.first, "last": p.last}


def _valuation_record(f: StockFundamentals) -> dict | None:
    v = f.valuation
    if v is None:
        return None
    at = {"date": v.date, "source": v.source}
    record = {
        "close": {"value": _num(v.close), **at},
        "pe_ttm": {"value": _num(v.pe_ttm), **at, "percentile": _percentile(f.pe)},
        "pb_mrq": {"value": _num(v.pb_mrq), **at, "percentile": _percentile(f.pb)},
        "ps_ttm": {"value": _num(v.ps_ttm), **at},
        "pcf_ttm": {"value": _num(v.pcf_ttm), **at},
    }
    if f.value is not None:
        how = "close × total_shares of the newest report × share_ratio" if f.value.computed else "source"
        grown = {"share_ratio": _num(f.value.share_ratio)} if f.value.computed else {}
        record["total_mv"] = {"value": _num(f.value.total), **at, "computed": how, **grown}
        record["float_mv"] = {"value": _num(f.value.floating), **at, "computed": how, **grown}
    if f.dividend_yield is not None:
        y = f.dividend_yield
        record["dividend_yield"] = {
            "value": round(float(y.value), 6),
            **at,
            "cash_per_share_12m": _num(y.cash),
            "payments_12m": y.payments,
            "adjusted_for_share_changes": y.adjusted,
            "computed": "each payment with an ex-date in the last 12 months (per share, before tax) / the share"
            " ratio of every 送转 on or after its ex-date, summed, / close",
        }
    return record


_REPORT_FIGURES = (
    "revenue",
    "revenue_yoy",
    "net_profit",
    "net_profit_yoy",
    "roe",
    "gross_margin",
    "net_margin",
    "debt_ratio",
    "operating_cash_flow",
    "cfo_to_profit",
    "eps_ttm",
    "total_shares",
    "float_shares",
)


def _report_record(r) -> dict:
    at = {"period": r.period, "published": r.published, "source": r.source}
    figures = {name: {"value": _num(getattr(r, name)), **at} for name in _REPORT_FIGURES}
    return {"period": r.period, "name": period_name(r.period), "published": r.published, "source": r.source, **figures}


def fundamentals_record(f: StockFundamentals, name: str | None, today: date) -> dict:
    upcoming = f.next_report
    sync = f.sync or {}
    return {
        "symbol": f.symbol,
        "name": name,
        "valuation": _valuation_record(f),
        "report": _report_record(f.latest) if f.latest else None,
        "reports": [_report_record(r) for r in f.reports],
        "dividends": [
            {
                "announced": d.announced,
                "ex_date": d.ex_date,
                "pay_date": d.pay_date,
                "cash_per_share": _num(d.cash),
                "bonus_shares_per_share": _num(d.bonus_shares),
                "transfer_shares_per_share": _num(d.transfer_shares),
                "summary": d.summary,
                "source": d.source,
            }
            for d in f.dividends
        ],
        "notices": [
            {
                "kind": n.kind,
                "period": n.period,
                "published": n.published,
                "summary": n.summary,
                "change_low": _num(n.change_low),
                "change_high": _num(n.change_high),
                "source": n.source,
            }
            for n in f.notices
        ],
        "next_report": {
            "period": upcoming[0],
            "name": period_name(upcoming[0]),
            "deadline": upcoming[1].isoformat(),
            "overdue": f.overdue(today),
        }
        if upcoming
        else None,
        "last_sync": sync.get("last_sync_at"),
        "reports_synced": sync.get("reports_at"),
        "last_error": sync.get("last_error"),
    }


@dataclass(frozen=True)
class KeptRefresh:
    """What a daily sync refreshed beside the bars: the kept fundamentals (their new
    valuation days; reports when due) and the whole-market snapshot once one is kept."""

    fundamentals: FundamentalsResult | None = None
    snapshot: object | None = None  # domain/market_review.py Snapshot
    snapshot_error: str | None = None
    fundamentals_error: str | None = None


def refresh_kept(market: Market, source: str, timeout: float, now: datetime) -> KeptRefresh | None:
    """None when nothing is kept (a user who never asked for either is not asked for it)."""
    fundamentals, errors = None, {}
    try:
        fundamentals = refresh_due(market, source, timeout, now)
    except RequestError as exc:
        errors["fundamentals_error"] = str(exc)
    snapshot = None
    if market.review.kept():
        from pixiu_cli.market.review.service import SnapshotRequest, sync_snapshot  # the review's modules

        try:
            snapshot = sync_snapshot(market, SnapshotRequest(max(timeout, 30.0)), now)
        except RequestError as exc:
            errors["snapshot_error"] = str(exc)
    if fundamentals is None and snapshot is None and not errors:
        return None
    return KeptRefresh(fundamentals, snapshot, **errors)
