"""The watch list (`watch add|remove|list`): a word of the market's, still declared here until the
market's commands are plain click commands (the aliases are memory/commands.py's)."""

from __future__ import annotations

from dataclasses import dataclass

from pixiu_cli.commands.declaration import Command, Group, Nothing, argument, lazy
from pixiu_cli.commands.values import CommandError, StockCode


@dataclass(frozen=True)
class StockRequest:
    symbol: str


def _watch(ctx, r: StockRequest) -> tuple[str, bool]:
    from pixiu_cli.market.service import watch

    return r.symbol, watch(ctx.db, r.symbol, ctx.now())


def _unwatch(ctx, r: StockRequest) -> str:
    from pixiu_cli.kernel.db.shared_stores import stores_of

    if not stores_of(ctx.db).market.unwatch(r.symbol):
        raise CommandError(f"{r.symbol} 不在自选中")
    return r.symbol


def _watchlist(ctx, _: Nothing):
    from pixiu_cli.market.service import watchlist

    return watchlist(ctx.db)


DECLARED = (
    Group(("watch",), "自选股（同步时与持仓一起更新）。", default="list"),
    Command(
        ("watch", "list"),
        "列出自选股。",
        (),
        Nothing,
        _watchlist,
        lazy("pixiu_cli.memory.views:show_watchlist"),
        record=lazy("pixiu_cli.memory.views:watchlist_record"),
    ),
    Command(
        ("watch", "add"),
        "加入自选股。",
        (argument("symbol", StockCode(), "股票代码"),),
        StockRequest,
        _watch,
        lazy("pixiu_cli.memory.views:show_watched"),
    ),
    Command(
        ("watch", "remove"),
        "移出自选股。",
        (argument("symbol", StockCode(), "股票代码"),),
        StockRequest,
        _unwatch,
        lazy("pixiu_cli.memory.views:show_unwatched"),
    ),
)
