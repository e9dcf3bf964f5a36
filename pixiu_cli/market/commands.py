"""The market-data commands: data (import, actions, bars, status, sync), /sync, chart,
market, fundamentals, signal and profile."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

from pixiu_cli.commands.declaration import CLI, REPL, Command, Group, Nothing, Param, argument, lazy, option, switch
from pixiu_cli.commands.values import (
    Choice,
    Codes,
    CommandError,
    Day,
    Flag,
    Int,
    Real,
    SeriesCode,
    StockCode,
    Text,
    Words,
)
from pixiu_cli.market.bars import VOLUME_UNITS
from pixiu_cli.market.source_by_name import SOURCE_NAMES

CLI_ONLY, REPL_ONLY = frozenset({CLI}), frozenset({REPL})
ADJUSTS = ("none", "qfq", "hfq")
VIEWS = "pixiu_cli.market.views"


@dataclass(frozen=True)
class CodeRequest:
    code: str


@dataclass(frozen=True)
class Found:
    """What a read command found, with what it was asked (the view names the stock)."""

    symbol: str = ""
    actions: tuple = ()
    bars: tuple = ()
    adjust: str = "none"
    statuses: tuple = ()
    notes: tuple = ()


def _actions(ctx, r: CodeRequest) -> Found:
    from pixiu_cli.kernel.db.shared_stores import stores_of

    return Found(r.code, actions=tuple(stores_of(ctx.db).market.actions(r.code)))


@dataclass(frozen=True)
class BarsRequest:
    code: str
    adjust: str
    start: str | None
    end: str | None


def _bars(ctx, r: BarsRequest) -> Found:
    from pixiu_cli.market.data import MarketData

    found = MarketData(ctx.db).bars(r.code, r.adjust, r.start, r.end).bars()
    return Found(r.code, bars=tuple(found), adjust=r.adjust)


def _status(ctx, _: Nothing) -> Found:
    from pixiu_cli.market.data import MarketData

    market = MarketData(ctx.db)
    return Found(statuses=tuple(market.status(ctx.now())), notes=tuple(market.reference_notes()))


@dataclass(frozen=True)
class ImportRequest:
    files: tuple[str, ...]
    symbol: str | None
    name: str | None
    adjusted: str
    actions: str | None
    volume_unit: str
    refresh: bool


def _import(ctx, r: ImportRequest):
    from pixiu_cli.market.service import BarImport, bar_files, import_bars

    paths = [Path(f) for f in r.files]
    if len(paths) == 1 and not paths[0].is_dir():
        spelling = r.symbol if r.symbol else _code_in_name(paths[0])
        request = BarImport(
            paths[0], spelling, r.name, r.adjusted, Path(r.actions) if r.actions else None, r.volume_unit
        )
        return import_bars(ctx.db, request, ctx.now(), ctx.tables().costs)
    if r.symbol or r.name or r.actions or r.adjusted != "none" or r.volume_unit != "auto":
        raise CommandError("--symbol、--name、--actions、--adjusted、--volume-unit 只用于导入单个文件")
    chosen = bar_files(paths)
    missing = [p for p in chosen if not p.exists()]
    if missing:
        raise CommandError(f"找不到文件 {missing[0]}")
    if not chosen:
        raise CommandError("没有找到日线文件（.csv、.txt、.tsv）")
    return _import_many(ctx, chosen, r.refresh)


def _code_in_name(path: Path) -> str:
    from pixiu_cli.market.importer import spelling_in_name

    code = spelling_in_name(path)
    if code is None:
        raise CommandError("请用 --symbol 指定股票代码（文件名里没有 6 位代码）")
    return code


def _import_many(ctx, files: list[Path], refresh: bool):
    from pixiu_cli.market.service import import_many

    costs = ctx.tables().costs
    with ctx.renderer.progress(len(files), "导入日线", show=len(files) > 3) as advance:
        return import_many(ctx.db, files, ctx.now(), costs, advance=advance, refresh_after=refresh)


def _show_import(renderer, done, spell) -> None:
    from pixiu_cli.market.views import show_imported_many, show_imported_one

    (show_imported_many if hasattr(done, "imported") else show_imported_one)(renderer, done, spell)


@dataclass(frozen=True)
class DataSyncRequest:
    codes: tuple[str, ...] | None
    source: str
    since: str | None
    timeout: float
    securities: bool
    if_trading_day: bool
    fundamentals: bool
    market: bool


@dataclass(frozen=True)
class Synced:
    kind: str  # "prices" | "securities" | "market" | "fundamentals" | "closed"
    done: object
    source: str = ""


def _check_sync(r: DataSyncRequest) -> None:
    if sum((r.securities, r.fundamentals, r.market)) > 1:
        raise CommandError("--securities、--fundamentals、--market 一次只能用一个")
    if r.securities and (r.codes or r.since):
        raise CommandError("--securities 只更新证券列表：不要同时给出股票代码或 --since")
    if r.market and (r.codes or r.since):
        raise CommandError("--market 只更新全市场快照：不要同时给出股票代码或 --since")
    if r.fundamentals and r.since:
        raise CommandError("--fundamentals 不用 --since：估值从上次存到的日子之后增量获取")
    if r.fundamentals and any(not c.isdigit() for c in r.codes or ()):
        raise CommandError(f"股票代码应为 6 位数字，而不是 {next(c for c in r.codes if not c.isdigit())!r}")


def _data_sync(ctx, r: DataSyncRequest) -> Synced:
    _check_sync(r)
    if r.securities:
        from pixiu_cli.market.service import SecuritiesRequest, sync_securities

        return Synced("securities", sync_securities(ctx.db, SecuritiesRequest(r.source, r.timeout), ctx.now()))
    if r.market:
        from pixiu_cli.market.review.service import SnapshotRequest, sync_snapshot

        return Synced("market", sync_snapshot(ctx.db, SnapshotRequest(max(r.timeout, 30.0)), ctx.now()))
    if r.fundamentals:
        return Synced("fundamentals", _sync_fundamentals(ctx, list(r.codes or ()), r.source, r.timeout))
    if r.if_trading_day:
        closed = closed_today(ctx)
        if closed:
            return Synced("closed", closed)
    return Synced("prices", _sync_prices(ctx, r), r.source)


def closed_today(ctx) -> str | None:
    """--if-trading-day: the holiday's name when the exchanges are closed today (Beijing time,
    the shipped calendar); a scheduled run then does nothing. A calendar note is said first."""
    from pixiu_cli.brief.schedule import closed_day
    from pixiu_cli.brief.views import calendar_line, closed_line
    from pixiu_cli.market.calendar import beyond_calendar

    moment = ctx.now()
    closed = closed_day(moment)
    if closed:
        return closed_line(closed)
    beyond = beyond_calendar(moment)
    if beyond:
        ctx.renderer.warn(calendar_line(beyond))
    return None


def _sync_prices(ctx, r: DataSyncRequest):
    from pixiu_cli.market.service import SyncRequest, sync_market, sync_targets

    symbols = sync_targets(ctx.db, list(r.codes) if r.codes else None)
    with ctx.renderer.progress(len(symbols), f"同步（{r.source}）", show=len(symbols) > 3) as advance:
        request = SyncRequest(symbols, r.source, r.since, r.timeout, daily=not r.codes)
        tables = ctx.tables()
        return sync_market(ctx.db, request, ctx.now(), tables.costs, on_symbol=lambda o: advance(), push=tables.push)


def _sync_fundamentals(ctx, symbols: list[str], source: str, timeout: float):
    from pixiu_cli.market.fundamentals.service import FundamentalsRequest, fundamentals_targets, sync_fundamentals

    targets = fundamentals_targets(ctx.db, symbols)
    with ctx.renderer.progress(len(targets), f"同步基本面（{source}）", show=len(targets) > 3) as advance:
        return sync_fundamentals(ctx.db, FundamentalsRequest(targets, source, timeout), ctx.now(), lambda o: advance())


@dataclass(frozen=True)
class SourceRequest:
    source: str


def _repl_sync(ctx, r: SourceRequest) -> Synced:
    """/sync: the default sync on the REPL's database (never while the background one runs)."""
    from pixiu_cli.market.service import SyncRequest, sync_market, sync_targets
    from pixiu_cli.market.trading_days import as_shanghai

    state = ctx.state
    running = state.background_sync
    if running is not None and running.running:
        raise CommandError("后台同步进行中，完成后会在这里报告")
    request = SyncRequest(sync_targets(ctx.db, None), r.source, daily=True)
    tables = ctx.tables()
    with ctx.renderer.progress(len(request.symbols), f"同步（{r.source}）", show=len(request.symbols) > 3) as advance:
        done = sync_market(
            ctx.db,
            request,
            ctx.now(),
            tables.costs,
            on_symbol=lambda o: advance(),
            push=None if ctx.demo else tables.push,  # the demo's alerts stay on screen
        )
    # asked for: not offered again today
    state.offered_session = state.offered_session or as_shanghai(ctx.now()).date().isoformat()
    return Synced("prices", done, r.source)


@dataclass(frozen=True)
class ChartRequest:
    code: str
    days: int


def _chart(ctx, r: ChartRequest) -> str:
    from pixiu_cli.market.service import chart

    shown = ctx.renderer
    return chart(ctx.db, r.code, r.days, ctx.now(), ctx.cost_method(), color=shown.rich_output, **shown.chart_size())


def _market(ctx, _: Nothing):
    from pixiu_cli.market.review.breadth import market_review

    return market_review(ctx.db, ctx.now())


@dataclass(frozen=True)
class StockFundamentals:
    fundamentals: object
    name: str | None
    today: date


def _fundamentals(ctx, r: CodeRequest) -> StockFundamentals:
    from pixiu_cli.market.fundamentals.service import stock_fundamentals

    found, name = stock_fundamentals(ctx.db, r.code)
    return StockFundamentals(found, name, ctx.now().date())


@dataclass(frozen=True)
class CodesRequest:
    codes: tuple[str, ...] | None


def _signals(ctx, r: CodesRequest):
    from pixiu_cli.market.analytics.signals import stored_signals

    return stored_signals(ctx.db, list(r.codes) if r.codes else None)


@dataclass(frozen=True)
class ProfilesRequest:
    codes: tuple[str, ...] | None
    again: bool


def _profiles(ctx, r: ProfilesRequest):
    from pixiu_cli.market.analytics.service import profiles

    return profiles(ctx.db, list(r.codes) if r.codes else None, ctx.now(), ctx.tables().costs, r.again)


SERIES_HELP = "股票代码，或指数基准 sh000300 / sh000001 / sz399006"
FILES_HELP = (
    "日线 CSV（通用表头、通达信导出、tushare 格式），可以是多个文件或一个文件夹；"
    "多个文件时代码取自文件名，同名的 X_actions.csv 为其除权除息"
)
SYNC_HELP = (
    "从网络数据源增量同步日线和除权除息（每只股票一个事务）；--securities 更新证券列表；"
    "--fundamentals 同步基本面；--market 同步全市场快照。不带代码的同步也会更新已在保存的基本面（到期的财报）和市场快照。"
)
SYNC_CODES_HELP = "股票代码或指数基准 sh000300 等（默认：持仓、自选股和指数基准沪深300、上证指数、创业板指）"

DATA_IMPORT = Command(
    ("data", "import"),
    "导入日线（存为不复权价格，附来源）：一只股票，或一次导入多个文件 / 整个文件夹。",
    (
        argument("files", Words(), FILES_HELP, many=True),
        option(
            "--symbol",
            "symbol",
            Text("代码"),
            "股票代码（6 位），或指数基准 sh000300 / sh000001 / sz399006（只导入一个文件时）",
        ),
        option("--name", "name", Text("名称"), "证券名称（写入证券主表）"),
        option("--adjusted", "adjusted", Choice(ADJUSTS), "文件价格的复权方式：none | qfq | hfq", "none"),
        option("--actions", "actions", Text("文件"), "除权除息 CSV：ex_date,cash_per_share,shares_per_share"),
        option(
            "--volume-unit", "volume_unit", Choice(VOLUME_UNITS), "成交量单位：auto | shares（股）| lots（手）", "auto"
        ),
        Param("refresh", Flag(), "导入后重算画像与信号（默认重算）", flag="--refresh/--no-refresh", default=True),
    ),
    ImportRequest,
    _import,
    _show_import,
    surfaces=CLI_ONLY,
)

DATA_SYNC = Command(
    ("data", "sync"),
    SYNC_HELP,
    (
        argument("codes", Codes(series=True), SYNC_CODES_HELP, optional=True, many=True),
        option("--source", "source", Choice(SOURCE_NAMES), "baostock | akshare", "baostock"),
        option("--since", "since", Day(), "从该日期起重新获取（默认增量）"),
        option("--timeout", "timeout", Real(1), "每次请求的超时秒数", 20.0),
        switch("--securities", "securities", "只更新证券列表（全部上市股票的代码和名称）"),
        switch("--if-trading-day", "if_trading_day", "今天（北京时间）休市时什么也不做（定时任务用）"),
        switch("--fundamentals", "fundamentals", "同步基本面：估值、财报摘要、分红、业绩预告（默认持仓和自选股）"),
        switch("--market", "market", "同步全市场快照：涨跌家数、涨跌停、成交额、行业板块（akshare）"),
    ),
    DataSyncRequest,
    _data_sync,
    lazy(f"{VIEWS}:show_data_sync"),
    surfaces=CLI_ONLY,
)

DECLARED = (
    Group(("data",), "行情数据：导入、同步、查看（不复权存储，读取时复权）。", surfaces=CLI_ONLY),
    DATA_IMPORT,
    Command(
        ("data", "actions"),
        "列出一只股票的除权除息记录（任何来源）。",
        (argument("code", StockCode(), "股票代码"),),
        CodeRequest,
        _actions,
        lazy(f"{VIEWS}:show_actions"),
        record=lazy(f"{VIEWS}:actions_record"),
        surfaces=CLI_ONLY,
    ),
    Command(
        ("data", "bars"),
        "显示日线（复权在读取时计算）；指数基准用 sh000300、sh000001、sz399006。",
        (
            argument("code", SeriesCode(), SERIES_HELP),
            option("--adjust", "adjust", Choice(ADJUSTS), "none（不复权）| qfq（前复权）| hfq（后复权）", "none"),
            option("--from", "start", Day(), "起始日期 YYYY-MM-DD"),
            option("--to", "end", Day(), "截止日期 YYYY-MM-DD"),
        ),
        BarsRequest,
        _bars,
        lazy(f"{VIEWS}:show_bars"),
        record=lazy(f"{VIEWS}:bars_record"),
        surfaces=CLI_ONLY,
    ),
    Command(
        ("data", "status"),
        "每只股票的数据范围、来源、最近同步，以及按交易日计的新鲜度。",
        (),
        Nothing,
        _status,
        lazy(f"{VIEWS}:show_status"),
        record=lazy(f"{VIEWS}:status_record"),
        surfaces=CLI_ONLY,
    ),
    DATA_SYNC,
    Command(
        ("sync",),
        "同步行情：持仓、自选股和指数基准的日线与除权除息（同 pixiu data sync）",
        (option("--source", "source", Choice(SOURCE_NAMES), "数据源", SOURCE_NAMES[0]),),
        SourceRequest,
        _repl_sync,
        lazy(f"{VIEWS}:show_data_sync"),
        surfaces=REPL_ONLY,
    ),
    Command(
        ("chart",),
        "终端走势图：前复权收盘、MA20/MA60、持仓成本线和买卖点。",
        (argument("code", StockCode(), "股票代码"), option("--days", "days", Int(5, 5000), "显示最近 N 个交易日", 250)),
        ChartRequest,
        _chart,
        lazy(f"{VIEWS}:show_chart"),
    ),
    Command(
        ("market",),
        "市场概况：指数基准的收盘与涨跌、全市场涨跌家数与涨跌停、成交额、最强和最弱的行业，均注明日期和来源。",
        (),
        Nothing,
        _market,
        lazy(f"{VIEWS}:show_market"),
        record=lazy("pixiu_cli.market.review.service:review_record"),
    ),
    Command(
        ("fundamentals",),
        "一只股票已存的基本面：估值（PE/PB 在自身历史中的分位）、最近的财报摘要、分红和报告日，均注明报告期和来源。",
        (argument("code", StockCode(), "股票代码或名称"),),
        CodeRequest,
        _fundamentals,
        lazy(f"{VIEWS}:show_fundamentals"),
        record=lazy(f"{VIEWS}:fundamentals_record"),
    ),
    Command(
        ("signal",),
        "融合信号及其分项（趋势、动量、波动、回撤），取自已存的信号。",
        (argument("codes", Codes(), "股票代码（默认：全部持仓）", optional=True, many=True),),
        CodesRequest,
        _signals,
        lazy(f"{VIEWS}:show_signals"),
        record=lazy(f"{VIEWS}:signals_record"),
        surfaces=CLI_ONLY,
    ),
    Command(
        ("profile",),
        "本地回测画像：3 年窗口、4 个策略、A 股成交规则与成本；样本内选优、样本外检验。",
        (
            argument("codes", Codes(), "股票代码（默认：有日线的持仓和自选股）", optional=True, many=True),
            switch("--refresh", "again", "重新计算（默认只在有新日线时计算）"),
        ),
        ProfilesRequest,
        _profiles,
        lazy("pixiu_cli.market.analytics.views_profiles:show_profiles"),
        record=lazy("pixiu_cli.market.analytics.views_profiles:profiles_record"),
        surfaces=CLI_ONLY,
    ),
)
