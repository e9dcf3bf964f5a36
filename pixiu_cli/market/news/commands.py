"""The news commands, the same functions for `pixiu news` and `/news`: news (list the stored
items) and news sync (from akshare)."""

from __future__ import annotations

from dataclasses import dataclass

import click

from pixiu_cli.commands import common
from pixiu_cli.commands.params import Codes, Int, Real, StockCode, argument, group, json_option
from pixiu_cli.market.news import service, views


@dataclass(frozen=True)
class Listed:
    items: list
    symbol: str | None


@dataclass(frozen=True)
class Synced:
    done: object
    json_out: bool


def _now():
    """Now on the running surface's clock: the REPL's (a test may pin it), else the workspace's."""
    state = common.repl_state()
    return state.clock() if state is not None else common.on_workspace().now()


news = group(
    "news",
    "新闻和公告：已存的条目（含信息层次、来源、链接）；sync 从 akshare 同步持仓和自选股的新闻与巨潮公告。",
    default="list",
)


@news.command("list", help="已存的新闻和公告（含信息层次、来源、链接）；可只看一只股票。")
@argument("code", StockCode(), "股票代码（只看这只）", required=False)
@click.option("--limit", type=Int(1, 1000), default=20, show_default=True, metavar="N", help="最多显示 N 条")
@json_option
def news_list(code, limit: int, as_json: bool) -> None:
    listed = Listed(common.on_workspace().market.news.listing(code, limit), code)
    if as_json:
        common.shown().json(views.listed_json(listed))
    else:
        common.finish(views.show_news(common.shown(), listed, common.spell))


@news.command("sync", help="从 akshare 同步持仓和自选股（或给出的股票）的新闻与巨潮公告。")
@argument("codes", Codes(), "股票代码（默认：持仓和自选股）", required=False, many=True)
@click.option(
    "--timeout", type=Real(1), default=20.0, show_default=True, metavar="TIMEOUT", help="每次请求的超时（秒）"
)
@json_option
def news_sync(codes, timeout: float, as_json: bool) -> None:
    done = service.sync_news(common.on_workspace().market, service.NewsSyncRequest(list(codes), timeout), _now())
    common.finish(views.show_sync(common.shown(), Synced(done, as_json), common.spell))


COMMANDS = {"news": news}
