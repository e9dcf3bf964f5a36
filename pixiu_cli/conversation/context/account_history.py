"""The account looked back on, in front of the model: the trade history (the ledger's fills
over the window the question names, or all of the stocks it names, each with its fees and its
recorded reason, and what the window realised, stock by stock) for a question that looks back
at the user's trades; and the returns over the periods a question about the account's return
names (`## 账户收益`).

The figures are the account's (`ws.account.history`, `ws.account.performance`, handed in as
callables); nothing is computed here."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import date, datetime
from decimal import Decimal

from pixiu_cli.conversation.context.block import BlockItem, MemoryId, Section
from pixiu_cli.conversation.context.layers import layer_for
from pixiu_cli.conversation.context.quoting import defuse, label, quote_data, show_number, show_price
from pixiu_cli.kernel.errors import RequestError

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


# The returns ---------------------------------------------------------------------------
RETURNS_KEY = "performance"
RETURNS_PRIORITY = 94  # right under the account's own lines when the question asks about it
RETURNS_TITLE = "账户收益"
DEFAULT_PERIODS = ("ytd", "1m")
# The periods a question names, in words, to what `pixiu performance` reads (a year or a
# month is filled in from the day asked).
_PERIOD_WORDS = (
    (re.compile(r"今年|年初|本年|这一年|\bytd\b|this year", re.IGNORECASE), "ytd"),
    (re.compile(r"这个月|本月|这月|this month", re.IGNORECASE), "this_month"),
    (re.compile(r"上个?月|last month", re.IGNORECASE), "last_month"),
    (re.compile(r"(?:近|最近|过去)(?:一|1)个?月|一个月(?:来|以来)"), "1m"),
    (re.compile(r"(?:近|最近|过去)(?:三|3)个?月|(?:这|本|近一)个?季度"), "3m"),
    (re.compile(r"(?:近|最近|过去)(?:一|1)年|一年(?:来|下来|以来)|(?:近|最近|过去)(?:12|十二)个月"), "1y"),
    (re.compile(r"去年|last year", re.IGNORECASE), "last_year"),
    (re.compile(r"前年"), "year_before"),
    (
        re.compile(
            r"(?:成立|开户|入市|建仓)以来|这(?:几|些)年|一直以来|总共|总的|至今|到现在为止|历史上|since (?:inception|the start)",
            re.IGNORECASE,
        ),
        "all",
    ),
)
_A_YEAR = re.compile(r"(20[0-9]{2})\s*年")


def asked_periods(text: str, today: date) -> tuple[str, ...]:
    """The periods the question names, as `pixiu performance` reads them (ytd, 2025, 2025-03,
    all, …), in the order named; 今年以来 and 近一月 when it names none."""
    found: list[tuple[int, str]] = []
    for pattern, key in _PERIOD_WORDS:
        if m := pattern.search(text):
            found.append((m.start(), _period_of(key, today)))
    found += [(m.start(), m.group(1)) for m in _A_YEAR.finditer(text) if int(m.group(1)) <= today.year]
    periods = tuple(dict.fromkeys(key for _, key in sorted(found)))
    return periods or DEFAULT_PERIODS


def _period_of(key: str, today: date) -> str:
    if key == "this_month":
        return f"{today.year}-{today.month:02d}"
    if key == "last_month":
        year, month = (today.year, today.month - 1) if today.month > 1 else (today.year - 1, 12)
        return f"{year}-{month:02d}"
    if key == "last_year":
        return str(today.year - 1)
    if key == "year_before":
        return str(today.year - 2)
    return key


# (now, the period's words) → the account's Performance, or a RequestError saying why not
Returns = Callable[[datetime, str], object]


def returns_section(returns: Returns, now: datetime, periods: Sequence[str]) -> Section:
    """One line a period: the time-weighted return, the profit in yuan, the money-weighted
    rate, the drawdown and the benchmark's same period, from the derivation `pixiu performance`
    shows; a period that cannot be measured says why."""
    items = []
    for words in periods:
        try:
            p = returns(now, words)
        except RequestError as refused:
            items.append(BlockItem(str(refused), "事实"))
            continue
        items.append(BlockItem(_returns_line(p), "事实", p.last_day))
    note = "与 pixiu performance 同一算法；时间加权收益率剔除银证转账的影响；日期为已收盘交易日"
    return Section(RETURNS_KEY, RETURNS_TITLE, tuple(items), RETURNS_PRIORITY, note=note)


def _returns_line(p) -> str:
    parts = [f"时间加权收益率 {_rate(p.twr)}", f"盈亏 {_signed(p.profit)} 元"]
    if p.irr is not None:
        parts.append(f"资金加权年化 {_rate(p.irr)}")
    if p.drawdown is not None and p.drawdown.depth < 0:
        parts.append(f"最大回撤 {_rate(p.drawdown.depth)}（{p.drawdown.peak} → {p.drawdown.trough}）")
    if p.benchmark is not None:
        if p.benchmark_return is None:
            parts.append(p.benchmark_note)
        else:
            gap = p.excess * 100
            said = f"跑赢 {gap:.2f} 个百分点" if gap > 0 else f"跑输 {-gap:.2f} 个百分点" if gap < 0 else "持平"
            parts.append(f"同期{p.benchmark.name} {_rate(p.benchmark_return)}，{said}")
    if len(p.months) > 1:
        best, worst = p.best_month, p.worst_month
        parts.append(f"最好的月份 {best.month} {_rate(best.twr)}，最差的 {worst.month} {_rate(worst.twr)}")
    alone = "（未设置过现金：只算股票部分，买卖视为资金进出）" if p.stocks_only else ""
    return f"{p.period.label}（{p.first_day} 至 {p.last_day}）{alone}：" + "；".join(parts)


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:+.2f}%"
