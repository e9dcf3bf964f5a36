"""The account's commands, the same functions for `pixiu X` and `/X`: holdings, trade,
trades (list, import), cash (show, set) and accounts. Each that reads or writes one broker
account takes `--account NAME` (reads: that account only; without it, every account combined). Each calls the account's use case and shows the
result through account/views.py."""

from __future__ import annotations

from pathlib import Path

import click

from pixiu_cli.account.overview import (
    account_record,
    accounts_record,
    list_trades,
    move_cash,
    read_account,
    set_cash,
    trade_day,
)
from pixiu_cli.account.performance import account_performance, performance_record
from pixiu_cli.account.risk import holdings_record
from pixiu_cli.account.views import (
    growth_chart,
    show_accounts,
    show_cash,
    show_cash_moved,
    show_cash_set,
    show_holdings,
    show_import,
    show_performance,
    show_recorded_trade,
    show_trades,
    trades_record,
)
from pixiu_cli.commands import common
from pixiu_cli.commands.params import Choice, Number, StockCode, Text, argument, demo_option, group, json_option
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.vocabulary import SIDES
from pixiu_cli.market.bars import benchmark_list, benchmark_spelled

BROKERS = ("auto", "ths", "eastmoney", "tdx")
DAY_HELP = "成交日期：2025-03-03、3月3日、昨天、周五、上周五（默认今天；须为交易日）"


def account_option(help: str = "只看这个账户（默认：所有账户合计）"):
    return click.option("--account", "broker_account", type=Text("账户"), metavar="NAME", help=help)


def _account_record(broker_account: str | None = None) -> dict:

    ws = common.on_workspace()
    return account_record(read_account(ws.account, ws.now(), broker_account))


@click.command(
    "holdings",
    help="持仓：股数、成本、最新收盘及日期、市值、浮动和已实现盈亏、占总资产的仓位（含现金）；"
    "风险分布：行业权重、最大单只与你定的仓位上限。",
)
@account_option()
@json_option
@demo_option
def holdings(broker_account: str | None, as_json: bool, demo: bool) -> None:
    ws = common.on_workspace()
    record = holdings_record(ws.account, ws.memory.investor, ws.now(), broker_account)
    if as_json:
        common.shown().json(record)
    else:
        common.finish(show_holdings(common.shown(), record, common.spell))


@click.command("trade", help="记录一笔买入或卖出（更新持仓与现金；/forget dN 可撤销）。")
@argument("side", Choice(SIDES, "buy|sell", label="买卖方向"), "buy 买入 | sell 卖出")
@argument("symbol", StockCode(), "六位股票代码（或名称、别名）")
@argument("quantity", Number("股数", positive=True, label="股数"), "股数")
@argument("price", Number("价格", positive=True, label="成交价"), "成交价（元）")
@click.option("--date", "day", type=Text("日期"), metavar="DATE", help=DAY_HELP)
@click.option(
    "--fee",
    type=Number("元", label="手续费"),
    metavar="FEE",
    help="手续费合计（元）；不写则按 [account] 佣金费率与当日税费估算",
)
@click.option("--reason", type=Text("理由"), metavar="REASON", help="理由")
@account_option("记入这个账户（默认：默认账户，即第一个账户）")
@demo_option
def trade(side, symbol, quantity, price, day, fee, reason, broker_account, demo) -> None:
    from pixiu_cli.account.trades import NewTrade, record_trade

    ws = common.on_workspace()
    fee = None if fee is None else float(fee)
    new = NewTrade(symbol, side, float(price), float(quantity), reason, None, "user", day, fee)
    stamp = ws.now().isoformat(timespec="seconds")
    recorded = record_trade(ws.account, new, stamp, ws.settings.commission, broker_account)
    common.finish(show_recorded_trade(common.shown(), recorded, common.spell))


trades = group(
    "trades",
    "成交与资金流水：trades [代码] 列出；trades import 交割单.csv 导入（重复导入不会重复记录）。",
    default="list",
)


@trades.command("list", help="列出成交与资金流水（对账单导入的和对话中记录的）；可只看一只股票。")
@argument("symbol", StockCode(), "只看这只股票", required=False)
@account_option()
@json_option
@demo_option
def trades_list(symbol, broker_account, as_json: bool, demo: bool) -> None:
    found = list_trades(common.on_workspace().account, symbol, broker_account)
    if as_json:
        common.shown().json(trades_record(found))
    else:
        common.finish(show_trades(common.shown(), found, common.spell))


@trades.command("import", help="导入券商对账单（交割单 CSV / Excel；重复导入不会重复记录）。")
@argument("file", Text("文件"), "对账单文件（交割单.csv / .xlsx）")
@click.option(
    "--broker",
    type=Choice(BROKERS),
    default="auto",
    metavar="BROKER",
    help="auto | ths 同花顺 | eastmoney 东方财富 | tdx 通达信",
)
@click.option("--dry-run", is_flag=True, help="只显示将新增、合并和跳过什么，不写入")
@click.option("--skip-bad", is_flag=True, help="跳过无法读取的行（并列出），而不是整个文件不导入")
@account_option("导入到这个账户（不存在则新建；默认：按对账单的股东代码/资金账号）")
@demo_option
def trades_import(file, broker, dry_run, skip_bad, broker_account, demo) -> None:
    from pixiu_cli.account.statement_import import import_statement

    ws = common.on_workspace()
    done = import_statement(
        ws.account,
        Path(file),
        ws.now(),
        broker=broker,
        dry_run=dry_run,
        skip_bad=skip_bad,
        broker_account=broker_account,
    )
    common.finish(show_import(common.shown(), done, common.spell))


cash = group(
    "cash",
    "现金：cash set 50000 设置余额；cash in / cash out 金额 记录银证转入 / 转出；不带参数显示当前余额。",
    default="show",
)


@cash.command("show", help="显示现金余额与总资产（多个账户时列出每个账户的现金）。")
@account_option()
@demo_option
def cash_show(broker_account, demo: bool) -> None:
    common.finish(show_cash(common.shown(), _account_record(broker_account), common.spell))


@cash.command("set", help="设置现金余额（元）。")
@argument("amount", Number("金额", label="现金余额"), "现金余额（元）")
@click.option("--date", "day", type=Text("日期"), metavar="DATE", help="余额对应的日期（默认今天）")
@account_option("这个账户的余额（默认：默认账户，即第一个账户）")
@demo_option
def cash_set(amount, day, broker_account, demo: bool) -> None:
    ws = common.on_workspace()
    done = set_cash(ws.account.narrowed(broker_account), float(amount), day, ws.now())
    common.finish(show_cash_set(common.shown(), done, common.spell))


def _transfer_command(word: str, kind: str, said: str, help: str):
    """`cash in` and `cash out`: one bank transfer, told by hand, into the account's ledger."""

    @cash.command(word, help=help)
    @argument("amount", Number("金额", positive=True, label=f"{said}金额"), f"{said}金额（元）")
    @click.option("--date", "day", type=Text("日期"), metavar="DATE", help="转账日期（默认今天；须为交易日）")
    @account_option("记入这个账户（默认：默认账户，即第一个账户）")
    @demo_option
    def transfer(amount, day, broker_account, demo: bool) -> None:
        ws = common.on_workspace()
        moved = move_cash(ws.account.narrowed(broker_account), kind, float(amount), day, ws.now())
        common.finish(show_cash_moved(common.shown(), moved, _account_record(broker_account), common.spell))

    return transfer


cash_in = _transfer_command("in", "transfer_in", "转入", "记录一笔银证转入（从银行转入证券账户）：算收益时的资金投入。")
cash_out = _transfer_command(
    "out", "transfer_out", "转出", "记录一笔银证转出（从证券账户转回银行）：算收益时的资金取出。"
)


@click.command(
    "performance",
    help="账户收益：时间加权与资金加权收益率、盈亏、最大回撤、波动率、月度收益，对比沪深300（今年以来、近一年、自成立……）。",
)
@argument(
    "period",
    Text("区间"),
    "今年以来 ytd（默认）| 近一月 1m | 近三月 3m | 近一年 1y | 自成立 all | 2025 | 2025-03",
    required=False,
)
@click.option("--from", "start", type=Text("日期"), metavar="DATE", help="从这一天起（含）")
@click.option("--to", "end", type=Text("日期"), metavar="DATE", help="到这一天（含；默认最近一个已收盘的交易日）")
@click.option(
    "--benchmark",
    type=Text("指数"),
    default="sh000300",
    show_default=True,
    metavar="INDEX",
    help="对比的指数：sh000300 / sh000001 / sz399006",
)
@click.option("--no-chart", is_flag=True, help="不画走势图")
@account_option()
@json_option
@demo_option
def performance(period, start, end, benchmark, no_chart: bool, broker_account, as_json: bool, demo: bool) -> None:
    ws, shown = common.on_workspace(), common.shown()
    now = ws.now()
    first, last = (
        None if words is None else trade_day(words, now, sessions_only=False).isoformat() for words in (start, end)
    )
    books = ws.account.narrowed(broker_account)
    done = account_performance(books, now, period, start=first, end=last, benchmark=benchmark_named(benchmark))
    if as_json:
        shown.json(performance_record(done))
        return
    chart = None
    if not no_chart and len(done.daily) > 2:
        chart = growth_chart(done, color=shown.rich_output, **shown.chart_size())
    common.finish(show_performance(shown, done, chart, common.spell))


def benchmark_named(raw: str):
    found = benchmark_spelled(raw)
    if found is None:
        raise RequestError(f"不认识的指数 {raw!r}：可以是 {benchmark_list()}")
    return found


@click.command("accounts", help="券商账户：名称、客户端、资金账号和股东代码、持仓只数、现金。")
@json_option
@demo_option
def accounts(as_json: bool, demo: bool) -> None:
    ws = common.on_workspace()
    record = accounts_record(ws.account, ws.now())
    if as_json:
        common.shown().json(record)
    else:
        common.finish(show_accounts(common.shown(), record, common.spell))


COMMANDS = {
    "holdings": holdings,
    "trade": trade,
    "trades": trades,
    "cash": cash,
    "performance": performance,
    "accounts": accounts,
}
