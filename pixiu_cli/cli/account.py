"""`pixiu holdings|trade|trades|cash`: the investor's real account (broker statements in,
holdings, cash and P&L out)."""

from __future__ import annotations

from typing import Annotated

import typer

from pixiu_cli.cli import common


def holdings_command(as_json: common.JsonOpt = False, demo: common.DemoOpt = False) -> None:
    """持仓：股数、成本、最新收盘及日期、市值、浮动和已实现盈亏、占总资产的仓位。"""
    from pixiu_cli.services.account import account_record, read_account
    from pixiu_cli.views.account import show_holdings

    loaded = common.settings()
    with common.database(demo) as db:
        record = account_record(read_account(db, common.now(), loaded.cost_method))
    shown = common.renderer()
    if as_json:
        shown.json(record)
    else:
        show_holdings(shown, record)


def trade_command(
    side: Annotated[str, typer.Argument(help="buy 买入 | sell 卖出")],
    code: Annotated[str, typer.Argument(help="六位股票代码")],
    quantity: Annotated[float, typer.Argument(help="股数")],
    price: Annotated[float, typer.Argument(help="成交价（元）")],
    date: Annotated[str | None, typer.Option("--date", help="成交日期：2025-03-03、3月3日、昨天（默认今天）")] = None,
    fee: Annotated[float, typer.Option("--fee", help="手续费合计（元）")] = 0.0,
    reason: Annotated[str | None, typer.Option("--reason", help="理由")] = None,
    demo: common.DemoOpt = False,
) -> None:
    """记录一笔买入或卖出（更新持仓与现金；/forget dN 可撤销）。"""
    from pixiu_cli.domain.vocabulary import SIDES
    from pixiu_cli.services.trades import NewTrade, record_trade

    common.choice(side, SIDES, "买卖方向")
    trade = NewTrade(common.stock_code(code, demo), side, price, quantity, reason, None, "user", date, fee)
    loaded = common.settings()
    with common.database(demo) as db:
        recorded = record_trade(db, trade, common.stamp(), loaded.cost_method)
    common.renderer().info(recorded.notice())


def trades_command(
    args: Annotated[list[str] | None, typer.Argument(help="[代码] 列出成交；import 文件 导入券商对账单")] = None,
    broker: Annotated[
        str, typer.Option("--broker", help="auto | ths 同花顺 | eastmoney 东方财富 | tdx 通达信")
    ] = "auto",
    dry_run: Annotated[bool, typer.Option("--dry-run", help="只显示将新增、合并和跳过什么，不写入")] = False,
    skip_bad: Annotated[
        bool, typer.Option("--skip-bad", help="跳过无法读取的行（并列出），而不是整个文件不导入")
    ] = False,
    new_account: Annotated[bool, typer.Option("--new-account", help="股东代码与之前导入的不同时，确认合并")] = False,
    as_json: common.JsonOpt = False,
    demo: common.DemoOpt = False,
) -> None:
    """成交与资金流水：pixiu trades [代码] 列出；pixiu trades import 交割单.csv 导入（重复导入不会重复记录）。"""
    words = args or []
    if words and words[0] == "import":
        if len(words) != 2:
            raise common.CliError("用法：pixiu trades import 文件 [--broker auto] [--dry-run] [--skip-bad]")
        _import(words[1], broker, dry_run, skip_bad, new_account, demo)
        return
    if len(words) > 1:
        raise common.CliError("用法：pixiu trades [代码]，或 pixiu trades import 文件")
    from dataclasses import asdict

    from pixiu_cli.services.account import list_trades
    from pixiu_cli.views.account import show_trades

    symbol = common.stock_code(words[0], demo) if words else None
    with common.database(demo) as db:
        trades = list_trades(db, symbol)
    shown = common.renderer()
    if as_json:
        shown.json([asdict(t) for t in trades])
    else:
        show_trades(shown, trades)


def _import(file: str, broker: str, dry_run: bool, skip_bad: bool, new_account: bool, demo: bool) -> None:
    from pathlib import Path

    from pixiu_cli.services.statements import import_statement
    from pixiu_cli.views.account import import_lines

    loaded = common.settings()
    with common.database(demo) as db:
        done = import_statement(
            db,
            Path(file),
            common.now(),
            broker=broker,
            dry_run=dry_run,
            skip_bad=skip_bad,
            new_account=new_account,
            cost_method=loaded.cost_method,
        )
    lines, warnings = import_lines(done)
    shown = common.renderer()
    for line in lines:
        shown.line(line)
    for warning in warnings:
        shown.warn(warning)


def cash_command(
    action: Annotated[str | None, typer.Argument(help="set：设置现金余额；不填则显示")] = None,
    amount: Annotated[float | None, typer.Argument(help="现金余额（元）")] = None,
    date: Annotated[str | None, typer.Option("--date", help="余额对应的日期（默认今天）")] = None,
    demo: common.DemoOpt = False,
) -> None:
    """现金余额：pixiu cash set 50000 [--date 2025-03-03]；不带参数显示当前余额。"""
    from pixiu_cli.services.account import account_record, read_account, set_cash
    from pixiu_cli.views.account import cash_line

    shown = common.renderer()
    if action is None:
        loaded = common.settings()
        with common.database(demo) as db:
            record = account_record(read_account(db, common.now(), loaded.cost_method))
        shown.info(cash_line(record))
        return
    if action != "set" or amount is None:
        raise common.CliError("用法：pixiu cash set 金额 [--date 日期]")
    with common.database(demo) as db:
        cash = set_cash(db, amount, date, common.now())
    shown.info(f"已设置现金 {cash.amount:,.2f}（截至 {cash.as_of}）")


def register(app: typer.Typer) -> None:
    app.command("holdings")(holdings_command)
    app.command("trade")(trade_command)
    app.command("trades")(trades_command)
    app.command("cash")(cash_command)
