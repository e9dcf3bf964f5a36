"""`pixiu news [CODE] [--json]` and `pixiu news sync [CODES…]`: flags parsed here, the use
cases in services/news.py, output through render.py."""

from __future__ import annotations

from typing import Annotated

import typer

from pixiu_cli.cli import common
from pixiu_cli.cli.common import JsonOpt, database, now, stock_code


def news(
    args: Annotated[
        list[str] | None, typer.Argument(help="股票代码（只看这只）；或 sync [CODES…] 从 akshare 同步新闻和公告")
    ] = None,
    as_json: JsonOpt = False,
    limit: Annotated[int, typer.Option("--limit", help="最多显示 N 条", min=1, max=1000)] = 20,
    timeout: Annotated[float, typer.Option("--timeout", help="每次请求的超时（秒）", min=1)] = 20.0,
) -> None:
    """新闻和公告：已存的条目（含信息层次、来源、链接）；sync 从 akshare 同步持仓和自选股的新闻与巨潮公告。"""
    args = list(args or [])
    if args and args[0] == "sync":
        _sync([stock_code(c) for c in args[1:]], timeout, as_json)
        return
    if len(args) > 1:
        raise common.CliError("用法：pixiu news [CODE] 或 pixiu news sync [CODES…]")
    _list(stock_code(args[0]) if args else None, limit, as_json)


def _list(symbol: str | None, limit: int, as_json: bool) -> None:
    from pixiu_cli.store.shared import stores_of
    from pixiu_cli.views.news import COLUMNS, news_json, news_table

    with database() as db:
        items = stores_of(db).news.listing(symbol, limit)
    renderer = common.renderer()
    if as_json:
        renderer.json(news_json(items))
    elif not items:
        renderer.line(f"没有已存的新闻{f'（{symbol}）' if symbol else ''}：pixiu news sync 从 akshare 同步")
    else:
        renderer.table(f"新闻与公告{f'：{symbol}' if symbol else ''}", COLUMNS, news_table(items))


def _sync(symbols: list[str], timeout: float, as_json: bool) -> None:
    from pixiu_cli.services.news import NewsSyncRequest, sync_news
    from pixiu_cli.views.news import sync_report

    renderer = common.renderer()
    with database() as db:
        done = sync_news(db, NewsSyncRequest(symbols, timeout), now())
    report = sync_report(done)
    if as_json:
        renderer.json(
            {
                "added": done.added,
                "outcomes": [o.__dict__ | {"errors": list(o.errors)} for o in done.outcomes],
                "error": report.error,
            }
        )
    else:
        for line in report.lines:
            renderer.line(line)
    if report.error:
        renderer.error(report.error)
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("news")(news)
