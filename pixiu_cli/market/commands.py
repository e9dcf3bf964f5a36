"""The market's commands, the same functions for `pixiu X` and `/X`: data (import, actions,
bars, status, sync; the command line's), /sync (the REPL's), chart, market, fundamentals,
signal and profile (the command line's), track and watch (list, add, remove). Each calls the
market's use case and shows the result through the market's views."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

import click

from pixiu_cli.commands import common
from pixiu_cli.commands.params import (
    Choice,
    Codes,
    Command,
    CommandError,
    Day,
    Int,
    Real,
    SeriesCode,
    StockCode,
    Text,
    argument,
    group,
    json_option,
)
from pixiu_cli.market import service
from pixiu_cli.market import views as market_views
from pixiu_cli.market.analytics.service import profiles, track
from pixiu_cli.market.bars import VOLUME_UNITS
from pixiu_cli.market.data import MarketData
from pixiu_cli.market.fundamentals.service import (
    FundamentalsRequest,
    fundamentals_targets,
    stock_fundamentals,
    sync_fundamentals,
)
from pixiu_cli.market.importer import spelling_in_name
from pixiu_cli.market.source_by_name import SOURCE_NAMES
from pixiu_cli.market.trading_days import as_shanghai

ADJUSTS = ("none", "qfq", "hfq")


@dataclass(frozen=True)
class Found:
    """What a read command found, with what it was asked (the view names the stock)."""

    symbol: str = ""
    actions: tuple = ()
    bars: tuple = ()
    adjust: str = "none"
    statuses: tuple = ()
    notes: tuple = ()


@dataclass(frozen=True)
class Synced:
    kind: str  # "prices" | "securities" | "market" | "fundamentals" | "closed"
    done: object
    source: str = ""


@dataclass(frozen=True)
class StockFundamentals:
    fundamentals: object
    name: str | None
    today: date


def _now():
    """Now on the running surface's clock: the REPL's (a test may pin it), else the workspace's."""
    state = common.repl_state()
    return state.clock() if state is not None else common.on_workspace().now()


def _market():
    return common.on_workspace().market


def _show(result, view, record=None, as_json: bool = False) -> None:
    """--json: the record of the result, when it has one; else the view (its status the exit's)."""
    document = record(result) if as_json and record is not None else None
    if document is not None:
        common.shown().json(document)
    else:
        common.finish(view(common.shown(), result, common.spell))


# -- data -----------------------------------------------------------------------------------

FILES_HELP = (
    "日线 CSV（通用表头、通达信导出、tushare 格式），可以是多个文件或一个文件夹；"
    "多个文件时代码取自文件名，同名的 X_actions.csv 为其除权除息"
)
SERIES_HELP = "股票代码，或指数基准 sh000300 / sh000001 / sz399006"
SYNC_HELP = (
    "从网络数据源增量同步日线和除权除息（每只股票一个事务）；--securities 更新证券列表；"
    "--fundamentals 同步基本面；--market 同步全市场快照。不带代码的同步也会更新已在保存的基本面（到期的财报）和市场快照。"
)
SYNC_CODES_HELP = "股票代码或指数基准 sh000300 等（默认：持仓、自选股和指数基准沪深300、上证指数、创业板指）"

data = group("data", "行情数据：导入、同步、查看（不复权存储，读取时复权）。")


@data.command("import", help="导入日线（存为不复权价格，附来源）：一只股票，或一次导入多个文件 / 整个文件夹。")
@argument("files", Text("文件"), FILES_HELP, required=False, many=True)
@click.option(
    "--symbol",
    type=Text("代码"),
    metavar="SYMBOL",
    help="股票代码（6 位），或指数基准 sh000300 / sh000001 / sz399006（只导入一个文件时）",
)
@click.option("--name", type=Text("名称"), metavar="NAME", help="证券名称（写入证券主表）")
@click.option(
    "--adjusted",
    type=Choice(ADJUSTS),
    default="none",
    show_default=True,
    metavar="ADJUSTED",
    help="文件价格的复权方式：none | qfq | hfq",
)
@click.option(
    "--actions", type=Text("文件"), metavar="ACTIONS", help="除权除息 CSV：ex_date,cash_per_share,shares_per_share"
)
@click.option(
    "--volume-unit",
    type=Choice(VOLUME_UNITS),
    default="auto",
    show_default=True,
    metavar="VOLUME_UNIT",
    help="成交量单位：auto | shares（股）| lots（手）",
)
@click.option("--refresh/--no-refresh", default=True, show_default=True, help="导入后重算画像与信号（默认重算）")
def data_import(files, symbol, name, adjusted, actions, volume_unit, refresh) -> None:
    if not files:
        # the declared parameter's refusal: one line, exit 1 (not click's usage error)
        raise CommandError(f"缺少文件：{FILES_HELP}")
    ws = common.on_workspace()
    paths = [Path(f) for f in files]
    if len(paths) == 1 and not paths[0].is_dir():
        spelling = symbol if symbol else _code_in_name(paths[0])
        request = service.BarImport(paths[0], spelling, name, adjusted, Path(actions) if actions else None, volume_unit)
        done = service.import_bars(ws.market, request, _now(), ws.costs)
    else:
        if symbol or name or actions or adjusted != "none" or volume_unit != "auto":
            raise CommandError("--symbol、--name、--actions、--adjusted、--volume-unit 只用于导入单个文件")
        done = _import_many(ws, paths, refresh)
    show = market_views.show_imported_many if hasattr(done, "imported") else market_views.show_imported_one
    _show(done, show)


def _code_in_name(path: Path) -> str:
    code = spelling_in_name(path)
    if code is None:
        raise CommandError("请用 --symbol 指定股票代码（文件名里没有 6 位代码）")
    return code


def _import_many(ws, paths: list[Path], refresh: bool):
    chosen = service.bar_files(paths)
    missing = [p for p in chosen if not p.exists()]
    if missing:
        raise CommandError(f"找不到文件 {missing[0]}")
    if not chosen:
        raise CommandError("没有找到日线文件（.csv、.txt、.tsv）")
    costs = ws.costs
    with common.shown().progress(len(chosen), "导入日线", show=len(chosen) > 3) as advance:
        return service.import_many(ws.market, chosen, _now(), costs, advance=advance, refresh_after=refresh)


@data.command("actions", help="列出一只股票的除权除息记录（任何来源）。")
@argument("code", StockCode(), "股票代码")
@json_option
def data_actions(code, as_json: bool) -> None:
    found = Found(code, actions=tuple(_market().bars.actions(code)))
    _show(found, market_views.show_actions, market_views.actions_record, as_json)


@data.command("bars", help="显示日线（复权在读取时计算）；指数基准用 sh000300、sh000001、sz399006。")
@argument("code", SeriesCode(), SERIES_HELP)
@click.option(
    "--adjust",
    type=Choice(ADJUSTS),
    default="none",
    show_default=True,
    metavar="ADJUST",
    help="none（不复权）| qfq（前复权）| hfq（后复权）",
)
@click.option("--from", "start", type=Day(), metavar="YYYY-MM-DD", help="起始日期 YYYY-MM-DD")
@click.option("--to", "end", type=Day(), metavar="YYYY-MM-DD", help="截止日期 YYYY-MM-DD")
@json_option
def data_bars(code, adjust, start, end, as_json: bool) -> None:
    found = MarketData(_market()).bars(code, adjust, start, end).bars()
    _show(Found(code, bars=tuple(found), adjust=adjust), market_views.show_bars, market_views.bars_record, as_json)


@data.command("status", help="每只股票的数据范围、来源、最近同步，以及按交易日计的新鲜度。")
@json_option
def data_status(as_json: bool) -> None:
    market = MarketData(_market())
    found = Found(statuses=tuple(market.status(_now())), notes=tuple(market.reference_notes()))
    _show(found, market_views.show_status, market_views.status_record, as_json)


@data.command("sync", help=SYNC_HELP)
@argument("codes", Codes(series=True), SYNC_CODES_HELP, required=False, many=True)
@click.option(
    "--source",
    type=Choice(SOURCE_NAMES),
    default="baostock",
    show_default=True,
    metavar="SOURCE",
    help="baostock | akshare",
)
@click.option("--since", type=Day(), metavar="YYYY-MM-DD", help="从该日期起重新获取（默认增量）")
@click.option("--timeout", type=Real(1), default=20.0, show_default=True, metavar="TIMEOUT", help="每次请求的超时秒数")
@click.option("--securities", is_flag=True, help="只更新证券列表（全部上市股票的代码和名称）")
@click.option("--if-trading-day", is_flag=True, help="今天（北京时间）休市时什么也不做（定时任务用）")
@click.option("--fundamentals", is_flag=True, help="同步基本面：估值、财报摘要、分红、业绩预告（默认持仓和自选股）")
@click.option("--market", is_flag=True, help="同步全市场快照：涨跌家数、涨跌停、成交额、行业板块（akshare）")
def data_sync(codes, source, since, timeout, securities, if_trading_day, fundamentals, market) -> None:
    _check_sync(codes, since, securities, fundamentals, market)
    ws = common.on_workspace()
    if securities:
        synced = Synced(
            "securities", service.sync_securities(ws.market, service.SecuritiesRequest(source, timeout), _now())
        )
    elif market:
        from pixiu_cli.market.review.service import SnapshotRequest, sync_snapshot  # the review: akshare's sources

        synced = Synced("market", sync_snapshot(ws.market, SnapshotRequest(max(timeout, 30.0)), _now()))
    elif fundamentals:
        synced = Synced("fundamentals", _sync_fundamentals(ws, list(codes), source, timeout))
    else:
        closed = None
        if if_trading_day:
            from pixiu_cli.brief.views import closed_on  # the brief's views: only on a scheduled run

            closed = closed_on(_now(), common.shown())
        synced = (
            Synced("closed", closed)
            if closed
            else Synced("prices", _sync_prices(ws, codes, source, since, timeout), source)
        )
    _show(synced, market_views.show_data_sync)


def _check_sync(codes, since, securities: bool, fundamentals: bool, market: bool) -> None:
    if sum((securities, fundamentals, market)) > 1:
        raise CommandError("--securities、--fundamentals、--market 一次只能用一个")
    if securities and (codes or since):
        raise CommandError("--securities 只更新证券列表：不要同时给出股票代码或 --since")
    if market and (codes or since):
        raise CommandError("--market 只更新全市场快照：不要同时给出股票代码或 --since")
    if fundamentals and since:
        raise CommandError("--fundamentals 不用 --since：估值从上次存到的日子之后增量获取")
    if fundamentals and any(not c.isdigit() for c in codes):
        raise CommandError(f"股票代码应为 6 位数字，而不是 {next(c for c in codes if not c.isdigit())!r}")


def _sync_prices(ws, codes, source: str, since, timeout: float):
    symbols = service.sync_targets(ws.market, list(codes) if codes else None)
    with common.shown().progress(len(symbols), f"同步（{source}）", show=len(symbols) > 3) as advance:
        request = service.SyncRequest(symbols, source, since, timeout, daily=not codes)
        return service.sync_market(ws.market, request, _now(), ws.costs, on_symbol=lambda o: advance(), push=ws.push)


def _sync_fundamentals(ws, symbols: list[str], source: str, timeout: float):
    targets = fundamentals_targets(ws.market, symbols)
    with common.shown().progress(len(targets), f"同步基本面（{source}）", show=len(targets) > 3) as advance:
        request = FundamentalsRequest(targets, source, timeout)
        return sync_fundamentals(ws.market, request, _now(), lambda o: advance())


@click.command("sync", cls=Command, help="同步行情：持仓、自选股和指数基准的日线与除权除息（同 pixiu data sync）")
@click.option(
    "--source", type=Choice(SOURCE_NAMES), default=SOURCE_NAMES[0], show_default=True, metavar="SOURCE", help="数据源"
)
def repl_sync(source: str) -> None:
    """/sync: the default sync on the REPL's database (never while the background one runs)."""
    state = common.repl_state()
    running = state.background_sync
    if running is not None and running.running:
        raise CommandError("后台同步进行中，完成后会在这里报告")
    ws = common.on_workspace()
    request = service.SyncRequest(service.sync_targets(ws.market, None), source, daily=True)
    count = len(request.symbols)
    with common.shown().progress(count, f"同步（{source}）", show=count > 3) as advance:
        done = service.sync_market(
            ws.market,
            request,
            _now(),
            ws.costs,
            on_symbol=lambda o: advance(),
            push=None if ws.demo else ws.push,  # the demo's alerts stay on screen
        )
    # asked for: not offered again today
    state.offered_session = state.offered_session or as_shanghai(_now()).date().isoformat()
    _show(Synced("prices", done, source), market_views.show_data_sync)


# -- the market's views ---------------------------------------------------------------------


@click.command("chart", cls=Command, help="终端走势图：前复权收盘、MA20/MA60、持仓成本线和买卖点。")
@argument("code", StockCode(), "股票代码")
@click.option("--days", type=Int(5, 5000), default=250, show_default=True, metavar="N", help="显示最近 N 个交易日")
def chart(code, days: int) -> None:
    ws, shown = common.on_workspace(), common.shown()
    text = service.chart(ws.market, ws.account, code, days, _now(), color=shown.rich_output, **shown.chart_size())
    _show(text, market_views.show_chart)


@click.command(
    "market",
    cls=Command,
    help="市场概况：指数基准的收盘与涨跌、全市场涨跌家数与涨跌停、成交额、最强和最弱的行业，均注明日期和来源。",
)
@json_option
def market(as_json: bool) -> None:
    # the review reads akshare's sources: a price sync that fails offline must not load it
    from pixiu_cli.market.review.breadth import market_review
    from pixiu_cli.market.review.service import review_record

    _show(market_review(_market(), _now()), market_views.show_market, review_record, as_json)


@click.command(
    "fundamentals",
    cls=Command,
    help="一只股票已存的基本面：估值（PE/PB 在自身历史中的分位）、最近的财报摘要、分红和报告日，均注明报告期和来源。",
)
@argument("code", StockCode(), "股票代码或名称")
@json_option
def fundamentals(code, as_json: bool) -> None:
    found, name = stock_fundamentals(_market(), code)
    result = StockFundamentals(found, name, _now().date())
    _show(result, market_views.show_fundamentals, market_views.fundamentals_record, as_json)


@click.command("signal", cls=Command, help="融合信号及其分项（趋势、动量、波动、回撤），取自已存的信号。")
@argument("codes", Codes(), "股票代码（默认：全部持仓）", required=False, many=True)
@json_option
def signal(codes, as_json: bool) -> None:
    from pixiu_cli.market.analytics.signals import stored_signals  # numpy: only when it runs

    found = stored_signals(_market(), list(codes) if codes else None)
    _show(found, market_views.show_signals, market_views.signals_record, as_json)


@click.command(
    "profile", cls=Command, help="本地回测画像：3 年窗口、4 个策略、A 股成交规则与成本；样本内选优、样本外检验。"
)
@argument("codes", Codes(), "股票代码（默认：有日线的持仓和自选股）", required=False, many=True)
@click.option("--refresh", "again", is_flag=True, help="重新计算（默认只在有新日线时计算）")
@json_option
def profile(codes, again: bool, as_json: bool) -> None:
    ws = common.on_workspace()
    listing = profiles(ws.market, list(codes) if codes else None, _now(), ws.costs, again)
    _show(listing, market_views.show_profiles, market_views.profiles_record, as_json)


@click.command(
    "track", cls=Command, help="操作决策的事后表现：5 日、20 日收益，对比不操作和该股自身走势（命中率、最好与最差）。"
)
@json_option
def track_command(as_json: bool) -> None:
    _show(track(_market(), _now()), market_views.show_track, market_views.track_record, as_json)


# -- the watch list -------------------------------------------------------------------------
# Its views are memory/views.py's, which loads the conversation's selection (26 modules): they
# are imported when a watch command runs, so `pixiu data status` stays within its bound.

watch = group("watch", "自选股（同步时与持仓一起更新）。", default="list")


@watch.command("list", help="列出自选股。")
@json_option
def watch_list(as_json: bool) -> None:
    from pixiu_cli.memory import views as memory_views

    _show(service.watchlist(_market()), memory_views.show_watchlist, memory_views.watchlist_record, as_json)


@watch.command("add", help="加入自选股。")
@argument("symbol", StockCode(), "股票代码")
def watch_add(symbol) -> None:
    from pixiu_cli.memory import views as memory_views

    _show((symbol, service.watch(_market(), symbol, _now())), memory_views.show_watched)


@watch.command("remove", help="移出自选股。")
@argument("symbol", StockCode(), "股票代码")
def watch_remove(symbol) -> None:
    from pixiu_cli.memory import views as memory_views

    if not _market().bars.unwatch(symbol):
        raise CommandError(f"{symbol} 不在自选中")
    _show(symbol, memory_views.show_unwatched)


COMMANDS = {
    "data": data,
    "sync": repl_sync,
    "chart": chart,
    "market": market,
    "fundamentals": fundamentals,
    "signal": signal,
    "profile": profile,
    "track": track_command,
    "watch": watch,
}
