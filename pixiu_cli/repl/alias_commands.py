"""/alias: the user's names for stocks (宁王 → 300750)."""

from __future__ import annotations

from pixiu_cli.repl.commands import CommandError, ParsedCommand, registry
from pixiu_cli.repl.state import ReplState
from pixiu_cli.selection.aliases import add_alias, alias_table, list_aliases, remove_alias

USAGE = "/alias [别名 代码] | /alias --remove 别名"


@registry.command("alias", "给股票起别名，之后提到别名就会加载这只股票；不带参数列出全部", USAGE)
def alias_command(state: ReplState, cmd: ParsedCommand) -> None:
    master = state.app.builder.securities
    args = cmd.args
    if not args:
        rows = list_aliases(master)
        state.renderer.table("股票别名", ["别名", "代码", "名称", "来源"], alias_table(rows))
        return
    if args[0] == "--remove" and len(args) == 2:
        remove_alias(master, args[1])
        state.renderer.info(f"已删除别名 {args[1]}")
        return
    if len(args) != 2 or args[0].startswith("--"):
        raise CommandError(f"用法：{USAGE}")
    row = add_alias(master, args[0], args[1], state.clock())
    state.renderer.info(f"已设置别名：{row.alias} → {row.symbol}{' ' + row.name if row.name else ''}")
