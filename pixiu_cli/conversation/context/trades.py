"""The trade history in front of the model: the ledger's fills over the window the question
names (or all of the stocks it names), each with its fees and its recorded reason, and what
the window realised, stock by stock — for a question that looks back at the user's trades.

The figures are the ledger's (`services/account.py` `trade_history`, handed in as a
callable: this layer sits below the services); nothing is computed here."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from decimal import Decimal

from pixiu_cli.conversation.context.block import BlockItem, MemoryId, Section
from pixiu_cli.conversation.context.layers import layer_for
from pixiu_cli.conversation.context.quoting import defuse, label, quote_data, show_number, show_price

KEY = "trades"
PRIORITY = 85  # over the recorded decisions, under the asked-about stocks' sections
TITLE = "成交记录与已实现盈亏"

# (now, start, end, symbols or None, limit) → the ledger's TradeHistory
History = Callable[[datetime, date | None, date | None, list[str] | None, int], object]


def trades_section(history, what: str, reasons: dict[int, str]) -> Section | None:
    """The section for a TradeHistory; `what`: the window, said in words; `reasons`: the
    recorded decisions' reasons by id. None when the window holds no trade."""
    if not history.fills:
        return None
    items = [_fill_item(f, reasons) for f in history.fills]
    if history.left_out:
        items.insert(0, BlockItem(f"更早的 {history.left_out} 笔未列出（需要时调用工具查询）", "事实"))
    if history.realised:
        items.append(BlockItem(_realised_text(history.realised), "事实"))
    return Section(KEY, TITLE, tuple(items), PRIORITY, note=what)


def _fill_item(f, reasons: dict[int, str]) -> BlockItem:
    line = f.line
    name = f" {label(line.name)}" if line.name else ""
    what = f"{line.kind} {defuse(line.symbol or '')}{name}"
    if line.quantity:
        what += f" {show_number(line.quantity)} 股 @ {show_price(line.price)}"
    else:
        what += f" {_money(line.amount)} 元"
    fees = f"，费用 {_money(line.fees)}{'（估算）' if line.fees_estimated else ''}" if line.fees else ""
    reason = reasons.get(f.decision_id) if f.decision_id else None
    why = f"，理由 {quote_data(reason)}" if reason else ""
    memory = MemoryId("decision", f.decision_id) if f.decision_id else None
    return BlockItem(f"{what}{fees}{why}（{line.origin}）", layer_for("decision"), line.day, memory)


def _realised_text(realised) -> str:
    parts = [
        f"{defuse(r.symbol)} {label(r.name)} {_signed(r.amount)}" + ("（已清仓）" if r.closed else "") for r in realised
    ]
    total = sum((r.amount for r in realised), Decimal(0))
    return "期间已实现盈亏（卖出相对持仓均价，含分红）：" + "；".join(parts) + f"；合计 {_signed(total)}"


def _money(amount: float | None) -> str:
    """Money to the fen, always with its two decimals (5.00, not 5); — when unknown."""
    return "—" if amount is None else f"{round(float(amount), 2):,.2f}"


def _signed(amount: Decimal) -> str:
    return f"{float(amount):+,.2f}"
