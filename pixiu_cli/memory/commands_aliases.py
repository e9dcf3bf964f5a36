"""The user's names for stocks (`alias 宁王 300750`) and the watch list (`watch add|remove|list`)."""

from __future__ import annotations

from dataclasses import dataclass

from pixiu_cli.commands.declaration import Command, Group, Nothing, argument, lazy, switch
from pixiu_cli.commands.values import CommandError, StockCode, Text


@dataclass(frozen=True)
class AliasRequest:
    alias: str | None
    symbol: str | None
    remove: bool


@dataclass(frozen=True)
class AliasOutcome:
    action: str  # "list" | "remove" | "add"
    rows: list  # selection.aliases.AliasRow: every alias listed, or the one added
    alias: str | None = None


def _alias(ctx, r: AliasRequest) -> AliasOutcome:
    from pixiu_cli.conversation.selection import aliases

    master = ctx.securities()
    if r.alias is None:
        return AliasOutcome("list", aliases.list_aliases(master))
    if r.remove:
        if r.symbol is not None:
            raise CommandError("--remove 只需要别名")
        aliases.remove_alias(master, r.alias)
        return AliasOutcome("remove", [], r.alias)
    if r.symbol is None:
        raise CommandError(f"用法：{ctx.spell('alias')} 别名 代码（如 {ctx.spell('alias')} 宁王 300750）")
    return AliasOutcome("add", [aliases.add_alias(master, r.alias, r.symbol, ctx.now())], r.alias)


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
    Command(
        ("alias",),
        "股票别名：alias 宁王 300750 设置（之后提到别名就会加载这只股票）；alias --remove 宁王 删除；不带参数列出全部。",
        (
            argument("alias", Text("别名"), "别名，如 宁王", optional=True),
            argument("symbol", StockCode(), "股票代码，如 300750", optional=True),
            switch("--remove", "remove", "删除这个别名"),
        ),
        AliasRequest,
        _alias,
        lazy("pixiu_cli.memory.views:show_alias"),
        record=lazy("pixiu_cli.memory.views:alias_record"),
        demo=True,
    ),
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
