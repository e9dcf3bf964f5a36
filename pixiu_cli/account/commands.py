"""The account's commands: holdings, trade, trades (list, import) and cash (show, set)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from pixiu_cli.commands.declaration import Command, Group, argument, lazy, option, switch
from pixiu_cli.commands.values import Choice, Number, StockCode, Text
from pixiu_cli.kernel.vocabulary import SIDES

BROKERS = ("auto", "ths", "eastmoney", "tdx")


@dataclass(frozen=True)
class Nothing:
    """The request of a command that takes no parameters."""


def _account(ctx, _: Nothing) -> dict:
    from pixiu_cli.account.overview import account_record, read_account

    return account_record(read_account(ctx.db, ctx.now(), ctx.cost_method()))


@dataclass(frozen=True)
class TradeRequest:
    side: str
    symbol: str
    quantity: Decimal
    price: Decimal
    day: str | None
    fee: Decimal | None
    reason: str | None


def _trade(ctx, r: TradeRequest):
    from pixiu_cli.account.trades import NewTrade, record_trade

    fee = None if r.fee is None else float(r.fee)
    trade = NewTrade(r.symbol, r.side, float(r.price), float(r.quantity), r.reason, None, "user", r.day, fee)
    commission = ctx.settings().commission if ctx.settings is not None else None
    return record_trade(ctx.db, trade, ctx.stamp(), ctx.cost_method(), commission)


@dataclass(frozen=True)
class TradesRequest:
    symbol: str | None


def _trades(ctx, r: TradesRequest):
    from pixiu_cli.account.overview import list_trades

    return list_trades(ctx.db, r.symbol)


@dataclass(frozen=True)
class ImportRequest:
    file: str
    broker: str
    dry_run: bool
    skip_bad: bool
    new_account: bool


def _import(ctx, r: ImportRequest):
    from pixiu_cli.account.statement_import import import_statement

    return import_statement(
        ctx.db,
        Path(r.file),
        ctx.now(),
        broker=r.broker,
        dry_run=r.dry_run,
        skip_bad=r.skip_bad,
        new_account=r.new_account,
        cost_method=ctx.cost_method(),
    )


@dataclass(frozen=True)
class CashRequest:
    amount: Decimal
    day: str | None


def _set_cash(ctx, r: CashRequest):
    from pixiu_cli.account.overview import set_cash

    return set_cash(ctx.db, float(r.amount), r.day, ctx.now())


DAY_HELP = "成交日期：2025-03-03、3月3日、昨天、周五、上周五（默认今天；须为交易日）"

DECLARED = (
    Command(
        ("holdings",),
        "持仓：股数、成本、最新收盘及日期、市值、浮动和已实现盈亏、占总资产的仓位（含现金）。",
        (),
        Nothing,
        _account,
        lazy("pixiu_cli.account.views:show_holdings"),
        record=lambda record: record,
        demo=True,
    ),
    Command(
        ("trade",),
        "记录一笔买入或卖出（更新持仓与现金；/forget dN 可撤销）。",
        (
            argument("side", Choice(SIDES, "buy|sell"), "buy 买入 | sell 卖出", label="买卖方向"),
            argument("symbol", StockCode(), "六位股票代码（或名称、别名）"),
            argument("quantity", Number("股数", positive=True), "股数", label="股数"),
            argument("price", Number("价格", positive=True), "成交价（元）", label="成交价"),
            option("--date", "day", Text("日期"), DAY_HELP),
            option(
                "--fee",
                "fee",
                Number("元"),
                "手续费合计（元）；不写则按 [account] 佣金费率与当日税费估算",
                label="手续费",
            ),
            option("--reason", "reason", Text("理由"), "理由"),
        ),
        TradeRequest,
        _trade,
        lazy("pixiu_cli.account.views:show_recorded_trade"),
        demo=True,
    ),
    Group(
        ("trades",),
        "成交与资金流水：trades [代码] 列出；trades import 交割单.csv 导入（重复导入不会重复记录）。",
        default="list",
    ),
    Command(
        ("trades", "list"),
        "列出成交与资金流水（对账单导入的和对话中记录的）；可只看一只股票。",
        (argument("symbol", StockCode(), "只看这只股票", optional=True),),
        TradesRequest,
        _trades,
        lazy("pixiu_cli.account.views:show_trades"),
        record=lazy("pixiu_cli.account.views:trades_record"),
        demo=True,
    ),
    Command(
        ("trades", "import"),
        "导入券商对账单（交割单 CSV / Excel；重复导入不会重复记录）。",
        (
            argument("file", Text("文件"), "对账单文件（交割单.csv / .xlsx）"),
            option(
                "--broker", "broker", Choice(BROKERS), "auto | ths 同花顺 | eastmoney 东方财富 | tdx 通达信", "auto"
            ),
            switch("--dry-run", "dry_run", "只显示将新增、合并和跳过什么，不写入"),
            switch("--skip-bad", "skip_bad", "跳过无法读取的行（并列出），而不是整个文件不导入"),
            switch("--new-account", "new_account", "股东代码与之前导入的不同时，确认合并"),
        ),
        ImportRequest,
        _import,
        lazy("pixiu_cli.account.views:show_import"),
        demo=True,
    ),
    Group(("cash",), "现金余额：cash set 50000 [--date 2025-03-03] 设置；不带参数显示当前余额。", default="show"),
    Command(
        ("cash", "show"),
        "显示现金余额与总资产。",
        (),
        Nothing,
        _account,
        lazy("pixiu_cli.account.views:show_cash"),
        demo=True,
    ),
    Command(
        ("cash", "set"),
        "设置现金余额（元）。",
        (
            argument("amount", Number("金额"), "现金余额（元）", label="现金余额"),
            option("--date", "day", Text("日期"), "余额对应的日期（默认今天）"),
        ),
        CashRequest,
        _set_cash,
        lazy("pixiu_cli.account.views:show_cash_set"),
        demo=True,
    ),
)
