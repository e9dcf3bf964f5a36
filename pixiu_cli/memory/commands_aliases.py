"""The user's names for stocks (`alias 宁王 300750`); the watch list is the market's (market/commands.py)."""

from __future__ import annotations

from dataclasses import dataclass

from pixiu_cli.commands.declaration import Command, argument, lazy, switch
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
)
