"""The news commands: news (list the stored items) and news sync (from akshare)."""

from __future__ import annotations

from dataclasses import dataclass

from pixiu_cli.commands.declaration import CLI, Command, Group, argument, lazy, option, switch
from pixiu_cli.commands.values import Codes, Int, Real, StockCode

VIEWS = "pixiu_cli.market.news.views"


@dataclass(frozen=True)
class NewsRequest:
    code: str | None
    limit: int


@dataclass(frozen=True)
class Listed:
    items: list
    symbol: str | None


def _list(ctx, r: NewsRequest) -> Listed:
    from pixiu_cli.kernel.db.shared_stores import stores_of

    return Listed(stores_of(ctx.db).news.listing(r.code, r.limit), r.code)


@dataclass(frozen=True)
class SyncRequest:
    codes: tuple[str, ...] | None
    timeout: float
    json_out: bool


@dataclass(frozen=True)
class Synced:
    done: object
    json_out: bool


def _sync(ctx, r: SyncRequest) -> Synced:
    from pixiu_cli.market.news.service import NewsSyncRequest, sync_news

    return Synced(sync_news(ctx.db, NewsSyncRequest(list(r.codes or ()), r.timeout), ctx.now()), r.json_out)


DECLARED = (
    Group(
        ("news",),
        "新闻和公告：已存的条目（含信息层次、来源、链接）；sync 从 akshare 同步持仓和自选股的新闻与巨潮公告。",
        default="list",
    ),
    Command(
        ("news", "list"),
        "已存的新闻和公告（含信息层次、来源、链接）；可只看一只股票。",
        (
            argument("code", StockCode(), "股票代码（只看这只）", optional=True),
            option("--limit", "limit", Int(1, 1000), "最多显示 N 条", 20),
        ),
        NewsRequest,
        _list,
        lazy(f"{VIEWS}:show_news"),
        record=lazy(f"{VIEWS}:listed_json"),
    ),
    Command(
        ("news", "sync"),
        "从 akshare 同步持仓和自选股（或给出的股票）的新闻与巨潮公告。",
        (
            argument("codes", Codes(), "股票代码（默认：持仓和自选股）", optional=True, many=True),
            option("--timeout", "timeout", Real(1), "每次请求的超时（秒）", 20.0),
            switch("--json", "json_out", "输出一个 JSON 文档", surfaces=frozenset({CLI})),
        ),
        SyncRequest,
        _sync,
        lazy(f"{VIEWS}:show_sync"),
    ),
)
