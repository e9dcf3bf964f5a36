"""`pixiu data …` and `pixiu chart`: flags parsed here, the work done by services/market.py,
output through render.py; `pixiu watch …` is declared in commands/aliases.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from pixiu_cli.cli import common, declared
from pixiu_cli.cli.common import JsonOpt, choice, database, now, series_code, stock_code

data_app = typer.Typer(help="行情数据：导入、同步、查看（不复权存储，读取时复权）。", add_completion=False)


@data_app.command("import")
def data_import(
    files: Annotated[
        list[str],
        typer.Argument(
            help="日线 CSV（通用表头、通达信导出、tushare 格式），可以是多个文件或一个文件夹；"
            "多个文件时代码取自文件名，同名的 X_actions.csv 为其除权除息"
        ),
    ],
    symbol: Annotated[
        str | None,
        typer.Option(
            "--symbol", help="股票代码（6 位），或指数基准 sh000300 / sh000001 / sz399006（只导入一个文件时）"
        ),
    ] = None,
    name: Annotated[str | None, typer.Option("--name", help="证券名称（写入证券主表）")] = None,
    adjusted: Annotated[str, typer.Option("--adjusted", help="文件价格的复权方式：none | qfq | hfq")] = "none",
    actions: Annotated[
        str | None, typer.Option("--actions", help="除权除息 CSV：ex_date,cash_per_share,shares_per_share")
    ] = None,
    volume_unit: Annotated[
        str, typer.Option("--volume-unit", help="成交量单位：auto | shares（股）| lots（手）")
    ] = "auto",
    refresh_after: Annotated[
        bool, typer.Option("--refresh/--no-refresh", help="导入后重算画像与信号（默认重算）")
    ] = True,
) -> None:
    """导入日线（存为不复权价格，附来源）：一只股票，或一次导入多个文件 / 整个文件夹。"""
    from pixiu_cli.market.csv_source import VOLUME_UNITS
    from pixiu_cli.services.market import bar_files

    choice(adjusted, ("none", "qfq", "hfq"), "--adjusted")
    choice(volume_unit, VOLUME_UNITS, "--volume-unit")
    paths = [Path(f) for f in files]
    if len(paths) == 1 and not paths[0].is_dir():
        spelling = symbol if symbol else _code_in_name(paths[0])
        _import_one(paths[0], spelling, name, adjusted, actions, volume_unit)
        return
    if symbol or name or actions or adjusted != "none" or volume_unit != "auto":
        raise common.CliError("--symbol、--name、--actions、--adjusted、--volume-unit 只用于导入单个文件")
    chosen = bar_files(paths)
    missing = [p for p in chosen if not p.exists()]
    if missing:
        raise common.CliError(f"找不到文件 {missing[0]}")
    if not chosen:
        raise common.CliError("没有找到日线文件（.csv、.txt、.tsv）")
    _import_files(chosen, refresh_after)


def _code_in_name(path: Path) -> str:
    from pixiu_cli.services.import_symbol import spelling_in_name

    code = spelling_in_name(path)
    if code is None:
        raise common.CliError("请用 --symbol 指定股票代码（文件名里没有 6 位代码）")
    return code


def _import_one(path: Path, spelling: str, name, adjusted: str, actions, volume_unit: str) -> None:
    from pixiu_cli.services.market import BarImport, import_bars

    request = BarImport(path, spelling, name, adjusted, Path(actions) if actions else None, volume_unit)
    with database() as db:
        done = import_bars(db, request, now(), common.costs())
    result, index = done.result, done.target.index
    shown = common.renderer()
    unit = "手（已换算为股）" if result.volume_unit == "lots" else "股"
    what = f"指数 {index.name}（{index.key}）" if index else result.symbol
    shown.info(
        f"已导入 {what}：{result.rows} 条日线，{result.first} 至 {result.last}；格式 {result.shape}，"
        f"成交量单位 {unit}" + ("。" if index else f"；除权除息 {len(result.actions)} 条。")
    )
    from pixiu_cli.views.sync import bare_code_line, suspect_line

    if done.target.decided:
        shown.info(bare_code_line(done.target.decided))

    for gap in result.suspects:
        shown.line(suspect_line(result.symbol, gap))
    for line in done.refreshed.lines():
        shown.line(line)


def _import_files(files: list[Path], refresh_after: bool) -> None:
    from pixiu_cli.services.market import import_many

    shown = common.renderer()
    with database() as db, shown.progress(len(files), "导入日线", show=len(files) > 3) as advance:
        done = import_many(db, files, now(), common.costs(), advance=advance, refresh_after=refresh_after)
    rows = sum(r.rows for r in done.imported)
    shown.info(f"已导入 {len(done.imported)} 个文件，共 {rows:,} 条日线；失败 {len(done.failed)} 个。")
    for path, why in done.failed:
        shown.warn(f"{path.name}：{why}（该文件未写入）")
    from pixiu_cli.views.sync import bare_code_line

    for path, decided in done.notes:
        shown.info(f"{path.name}：{bare_code_line(decided)}")
    for line in done.refreshed.lines() if done.refreshed else []:
        shown.line(line)


@data_app.command("actions")
def data_actions(code: Annotated[str, typer.Argument(help="股票代码")], as_json: JsonOpt = False) -> None:
    """列出一只股票的除权除息记录（任何来源）。"""
    from pixiu_cli.store.shared import stores_of

    symbol = stock_code(code)
    with database() as db:
        actions = stores_of(db).market.actions(symbol)
    renderer = common.renderer()
    if as_json:
        renderer.json(
            [
                {
                    "symbol": a.symbol,
                    "ex_date": a.ex_date,
                    "cash_per_share": a.cash_per_share,
                    "shares_per_share": a.shares_per_share,
                    "ratio": a.ratio,
                    "source": a.source,
                    "method": a.method,
                    "fetched_at": a.fetched_at,
                }
                for a in actions
            ]
        )
        return
    if not actions:
        renderer.line(f"{symbol} 没有除权除息记录")
        return
    rows = [
        [
            a.ex_date,
            f"{a.cash_per_share:g}",
            f"{a.shares_per_share:g}",
            f"{a.ratio:.6f}" if a.ratio else "—",
            a.source,
            a.fetched_at or "—",
        ]
        for a in actions
    ]
    renderer.table(f"{symbol} 除权除息", ["除权除息日", "每股派现", "每股送转", "复权比例", "来源", "获取时间"], rows)


@data_app.command("bars")
def data_bars(
    code: Annotated[str, typer.Argument(help="股票代码，或指数基准 sh000300 / sh000001 / sz399006")],
    adjust: Annotated[str, typer.Option("--adjust", help="none（不复权）| qfq（前复权）| hfq（后复权）")] = "none",
    start: Annotated[str | None, typer.Option("--from", help="起始日期 YYYY-MM-DD")] = None,
    end: Annotated[str | None, typer.Option("--to", help="截止日期 YYYY-MM-DD")] = None,
    as_json: JsonOpt = False,
) -> None:
    """显示日线（复权在读取时计算）；指数基准用 sh000300、sh000001、sz399006。"""
    from pixiu_cli.market.data import MarketData

    symbol = common.series_code(code)
    choice(adjust, ("none", "qfq", "hfq"), "--adjust")
    start, end = common.day(start, "--from"), common.day(end, "--to")
    with database() as db:
        bars = MarketData(db).bars(symbol, adjust, start, end).bars()
    renderer = common.renderer()
    if as_json:
        renderer.raw(
            json.dumps(
                [
                    {
                        "date": b.date,
                        "open": round(b.open, 4),
                        "high": round(b.high, 4),
                        "low": round(b.low, 4),
                        "close": round(b.close, 4),
                        "volume": b.volume,
                        "amount": b.amount,
                        "adjust": adjust,
                    }
                    for b in bars
                ],
                ensure_ascii=False,
            )
        )
        return
    if not bars:
        raise common.CliError(f"没有 {symbol} 在该区间的日线：先用 pixiu data import 或 pixiu data sync")
    label = {"none": "不复权", "qfq": "前复权", "hfq": "后复权"}[adjust]
    rows = [
        [b.date, f"{b.open:.2f}", f"{b.high:.2f}", f"{b.low:.2f}", f"{b.close:.2f}", f"{b.volume:,.0f}"] for b in bars
    ]
    renderer.table(
        f"{symbol} 日线（{label}，{len(bars)} 条）", ["日期", "开盘", "最高", "最低", "收盘", "成交量(股)"], rows
    )


@data_app.command("status")
def data_status(as_json: JsonOpt = False) -> None:
    """每只股票的数据范围、来源、最近同步，以及按交易日计的新鲜度。"""
    from pixiu_cli.market.data import MarketData

    with database() as db:
        data = MarketData(db)
        statuses, notes = data.status(now()), data.reference_notes()
    renderer = common.renderer()
    if as_json:
        renderer.json(
            [
                {
                    "symbol": s.symbol,
                    "name": s.name,
                    "rows": s.rows,
                    "first": s.first,
                    "last": s.last,
                    "source": s.source,
                    "origin": s.origin,
                    "adjusted": s.file_adjusted,
                    "stored_as": "none",
                    "last_sync": s.last_sync,
                    "stale": s.stale,
                    "stale_trading_days": s.stale_days,
                    "calendar_note": s.calendar_note,
                    "suspected_missing_actions": s.missing_actions,
                    "last_error": s.last_error,
                }
                for s in statuses
            ]
        )
        return
    for line in notes:
        renderer.line(line)
    if not statuses:
        renderer.line("还没有行情数据：pixiu data import FILE.csv --symbol CODE，或 pixiu data sync")
        return
    rows = []
    for s in statuses:
        fresh = "最新" if not s.stale else (f"过期 {s.stale_days} 个交易日" if s.stale_days else "过期")
        if s.calendar_note:
            fresh += f"（{s.calendar_note}，之后未计）"
        if s.missing_actions:
            fresh += f"；疑似缺少除权记录（{s.missing_actions} 处）"
        if s.last_error:
            fresh += f"（同步失败：{s.last_error}）"
        rows.append(
            [
                s.symbol,
                s.name or "—",
                str(s.rows),
                s.first or "—",
                s.last or "—",
                s.source or "—",
                f"不复权（文件 {s.file_adjusted}）" if s.file_adjusted else "不复权",
                s.last_sync or "—",
                fresh,
            ]
        )
    renderer.table("行情数据状态", ["代码", "名称", "条数", "首日", "末日", "来源", "存储", "最近同步", "新鲜度"], rows)


@data_app.command("sync")
def data_sync(
    codes: Annotated[
        list[str] | None,
        typer.Argument(
            help="股票代码或指数基准 sh000300 等（默认：持仓、自选股和指数基准沪深300、上证指数、创业板指）"
        ),
    ] = None,
    source: Annotated[str, typer.Option("--source", help="baostock | akshare")] = "baostock",
    since: Annotated[str | None, typer.Option("--since", help="从该日期起重新获取（默认增量）")] = None,
    timeout: Annotated[float, typer.Option("--timeout", help="每次请求的超时秒数", min=1)] = 20.0,
    securities: Annotated[
        bool, typer.Option("--securities", help="只更新证券列表（全部上市股票的代码和名称）")
    ] = False,
    if_trading_day: common.IfTradingDayOpt = False,
    fundamentals: Annotated[
        bool, typer.Option("--fundamentals", help="同步基本面：估值、财报摘要、分红、业绩预告（默认持仓和自选股）")
    ] = False,
    market: Annotated[
        bool, typer.Option("--market", help="同步全市场快照：涨跌家数、涨跌停、成交额、行业板块（akshare）")
    ] = False,
) -> None:
    """从网络数据源增量同步日线和除权除息（每只股票一个事务）；--securities 更新证券列表；
    --fundamentals 同步基本面；--market 同步全市场快照。不带代码的同步也会更新已在保存的基本面（到期的财报）和市场快照。"""
    from pixiu_cli.market.source_by_name import SOURCE_NAMES
    from pixiu_cli.services.market import SyncRequest, sync_market, sync_targets

    choice(source, SOURCE_NAMES, "--source")
    if sum((securities, fundamentals, market)) > 1:
        raise common.CliError("--securities、--fundamentals、--market 一次只能用一个")
    if securities and (codes or since):
        raise common.CliError("--securities 只更新证券列表：不要同时给出股票代码或 --since")
    if market and (codes or since):
        raise common.CliError("--market 只更新全市场快照：不要同时给出股票代码或 --since")
    if securities:
        _sync_securities(source, timeout)
        return
    if market:
        _sync_market_snapshot(timeout)
        return
    if fundamentals:
        if since:
            raise common.CliError("--fundamentals 不用 --since：估值从上次存到的日子之后增量获取")
        _sync_fundamentals([stock_code(c) for c in codes or []], source, timeout)
        return
    since = common.day(since, "--since")
    shown = common.renderer()
    if if_trading_day and common.closed_today(shown):
        return
    with database() as db:
        symbols = sync_targets(db, [series_code(c) for c in codes] if codes else None)
        with shown.progress(len(symbols), f"同步（{source}）", show=len(symbols) > 3) as advance:
            request = SyncRequest(symbols, source, since, timeout, daily=not codes)
            push = common.configured().push
            done = sync_market(db, request, now(), common.costs(), on_symbol=lambda o: advance(), push=push)
    _show_sync(shown, source, done)


def _sync_fundamentals(symbols: list[str], source: str, timeout: float) -> None:
    from pixiu_cli.services.fundamentals import FundamentalsRequest, fundamentals_targets, sync_fundamentals
    from pixiu_cli.views.fundamentals import fundamentals_sync_lines

    shown = common.renderer()
    with database() as db:
        targets = fundamentals_targets(db, symbols)
        with shown.progress(len(targets), f"同步基本面（{source}）", show=len(targets) > 3) as advance:
            done = sync_fundamentals(db, FundamentalsRequest(targets, source, timeout), now(), lambda o: advance())
    lines, error = fundamentals_sync_lines(done)
    for line in lines:
        shown.line(line)
    if error:
        shown.error(error)
        raise typer.Exit(1)


def _sync_market_snapshot(timeout: float) -> None:
    from pixiu_cli.services.market_review import SnapshotRequest, sync_snapshot
    from pixiu_cli.views.fundamentals import snapshot_line

    with database() as db:
        snapshot = sync_snapshot(db, SnapshotRequest(max(timeout, 30.0)), now())
    common.renderer().info(snapshot_line(snapshot))


def _sync_securities(source: str, timeout: float) -> None:
    from pixiu_cli.services.market import SecuritiesRequest, sync_securities

    with database() as db:
        done = sync_securities(db, SecuritiesRequest(source, timeout), now())
    shown = common.renderer()
    shown.info(
        f"证券列表已从 {done.source} 更新：{done.stocks:,} 只股票，新增 {done.added} 只，改名 {len(done.renamed)} 只"
    )
    for rename in done.renamed[:5]:
        shown.line(f"{rename.symbol}：{rename.old} → {rename.new}（旧名保留为别名）")
    if len(done.renamed) > 5:
        shown.line(f"…另有 {len(done.renamed) - 5} 只改名，旧名均保留为别名")


def _show_sync(shown, source: str, done) -> None:
    from pixiu_cli.views.sync import sync_report

    report = sync_report(source, done)
    if report.warning:
        shown.warn(report.warning)
    for line in report.lines:
        shown.line(line)
    if report.error:
        shown.error(report.error)
        raise typer.Exit(1)


def chart(
    code: Annotated[str, typer.Argument(help="股票代码")],
    days: Annotated[int, typer.Option("--days", help="显示最近 N 个交易日", min=5, max=5000)] = 250,
) -> None:
    """终端走势图：前复权收盘、MA20/MA60、持仓成本线和买卖点。"""
    from pixiu_cli.services.market import chart as chart_text

    symbol = stock_code(code)
    renderer = common.renderer()
    with database() as db:
        method = common.settings().cost_method
        text = chart_text(db, symbol, days, common.now(), method, color=renderer.rich_output, **renderer.chart_size())
    renderer.chart(text)


def register(app: typer.Typer) -> None:
    app.add_typer(data_app, name="data")
    declared.register(app, ("watch",))
    app.command("chart")(chart)
