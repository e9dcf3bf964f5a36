"""/holdings and /trades: the account as `pixiu holdings` and `pixiu trades` show it."""

from __future__ import annotations

from pixiu_cli.repl.commands import CommandError, ParsedCommand, registry
from pixiu_cli.repl.state import ReplState
from pixiu_cli.services.account import account_record, list_trades, read_account
from pixiu_cli.views.account import show_holdings, show_trades


@registry.command("holdings", "持仓：股数、成本、最新收盘、市值、盈亏与占总资产的仓位（含现金）", "/holdings")
def holdings_command(state: ReplState, cmd: ParsedCommand) -> None:
    if cmd.args:
        raise CommandError("用法：/holdings")
    view = read_account(state.app.memory.db, state.clock(), state.app.settings.cost_method)
    show_holdings(state.renderer, account_record(view))


@registry.command("trades", "成交与资金流水（对账单导入的和对话中记录的）；可只看一只股票", "/trades [代码]")
def trades_command(state: ReplState, cmd: ParsedCommand) -> None:
    from pixiu_cli.domain.codes import normalise_code

    if len(cmd.args) > 1:
        raise CommandError("用法：/trades [代码]（导入对账单请在终端运行 pixiu trades import 文件）")
    symbol = None
    if cmd.args:
        symbol = normalise_code(cmd.args[0])
        if symbol is None:
            raise CommandError(f"股票代码应为 6 位数字，而不是 {cmd.args[0]!r}")
    show_trades(state.renderer, list_trades(state.app.memory.db, symbol))
