"""What `pixiu holdings|trades|trades import` and `/holdings`, `/trades` show, on top of the
renderer's primitives; the same functions for the CLI and the REPL."""

from __future__ import annotations

from dataclasses import asdict

from pixiu_cli.domain.account import COST_METHOD_NAMES, KIND_NAMES
from pixiu_cli.render import Renderer


def _money(value: float | None) -> str:
    return "—" if value is None else f"{value:,.2f}"


def _signed(value: float | None) -> str:
    return "—" if value is None else f"{value:+,.2f}"


def _shares(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f}" if float(value).is_integer() else f"{value:,.4g}"


def _close(line) -> str:
    return f"{line.last_close:.2f}（{line.close_date}）" if line.priced else "无行情（按成本计）"


def holdings_rows(view) -> list[list[str]]:
    return [
        [
            f"{line.symbol} {line.name}",
            _shares(line.shares),
            _money(line.cost),
            _close(line),
            _money(line.value),
            _signed(line.pnl) + (f"（{line.pnl_pct * 100:+.1f}%）" if line.pnl_pct is not None else ""),
            _signed(line.realised_pnl),
            f"{line.weight * 100:.1f}%",
            line.as_of or "日期未知",
        ]
        for line in view.lines
    ]


def holdings_summary(view) -> list[str]:
    method = COST_METHOD_NAMES[view.cost_method]
    at_cost = f"（其中 {view.unpriced} 只无行情，按成本计）" if view.unpriced else ""
    lines = [f"股票市值 {_money(view.stock_value)}{at_cost}"]
    if view.cash is None:
        lines.append("现金：未知（pixiu cash set 金额，或导入带资金余额的对账单）；仓位按股票市值计")
    else:
        lines.append(
            f"现金 {_money(view.cash.amount)}（截至 {view.cash.as_of}）；总资产 {_money(view.total_assets)}；仓位按总资产计"
        )
    if view.closed:
        closed = "、".join(f"{p.symbol} {_signed(p.realised_pnl)}" for p in view.closed)
        lines.append(f"已清仓：{closed}")
    if view.closed or any(line.realised_pnl is not None for line in view.lines):
        lines.append(
            f"已实现盈亏合计 {_signed(view.realised_pnl)}（含股息，扣费用）；由成交记录推算的持仓，成本为{method}"
            "（config.toml [account] cost_method = diluted 摊薄 | average 均价）"
        )
    return lines


def show_holdings(renderer: Renderer, view) -> None:
    if not view.lines and view.cash is None:
        renderer.info("还没有持仓：pixiu trades import 交割单.csv 导入券商对账单，或 pixiu trade buy 代码 数量 价格")
        return
    columns = [
        "股票",
        "股数",
        COST_METHOD_NAMES[view.cost_method],
        "最新收盘",
        "市值",
        "浮动盈亏",
        "已实现",
        "仓位",
        "截至",
    ]
    renderer.table(f"持仓（{len(view.lines)} 只）", columns, holdings_rows(view))
    for line in holdings_summary(view):
        renderer.line(line)


def holdings_json(view) -> dict:
    return {
        "cost_method": view.cost_method,
        "holdings": [asdict(line) for line in view.lines],
        "cash": asdict(view.cash) if view.cash else None,
        "stock_value": round(view.stock_value, 2),
        "total_assets": round(view.total_assets, 2) if view.total_assets is not None else None,
        "unpriced": view.unpriced,
        "realised_pnl": view.realised_pnl,
        "closed": [asdict(p) for p in view.closed],
    }


def show_trades(renderer: Renderer, trades) -> None:
    if not trades:
        renderer.info("还没有成交记录：pixiu trades import 交割单.csv，或 pixiu trade buy 代码 数量 价格")
        return
    rows = [
        [
            t.day,
            t.kind,
            f"{t.symbol or ''} {t.name or ''}".strip() or "—",
            _shares(t.quantity) if t.quantity else "",
            f"{t.price:g}" if t.price else "",
            _money(t.amount),
            _money(t.fees) if t.fees else "",
            _money(t.balance) if t.balance is not None else "",
            t.origin,
            t.ref or "",
        ]
        for t in trades
    ]
    renderer.table(
        f"成交与资金流水（{len(trades)} 笔）",
        ["日期", "业务", "股票", "数量", "价格", "金额", "费用", "资金余额", "来源", "ID"],
        rows,
    )


def import_lines(done) -> tuple[list[str], list[str]]:
    """(summary lines, warnings) of a statement import or its dry run."""
    verb = "将" if done.dry_run else "已"
    matched = f"，{verb}与对话中记录的同一笔交易合并 {len(done.matched)} 笔（补上费用和编号）" if done.matched else ""
    lines = [f"识别为{done.layout}：{verb}新增 {len(done.added)} 笔{matched}，已有 {done.duplicates} 笔（不重复导入）"]
    if done.dry_run:
        lines += [
            f"  + {f.day} {KIND_NAMES.get(f.kind, f.kind)} {f.symbol or ''} {_shares(f.quantity) if f.quantity else ''}"
            f" {_money(f.amount)}".rstrip()
            for f in done.added
        ]
    for reason, count in sorted(done.skipped.items()):
        lines.append(f"跳过 {count} 行：{reason}")
    for change in done.holdings:
        lines.append(_holding_change(change, done.dry_run))
    if done.cash is not None:
        lines.append(f"现金：{verb}按对账单设为 {_money(done.cash.amount)}（{done.cash.as_of} 资金余额）")
    warnings = [f"已跳过有误的行：{message}" for message in done.bad_rows]
    if done.unknown:
        listed = "、".join(f"{name} {count}" for name, count in done.unknown.items())
        warnings.append(f"未识别的业务 {sum(done.unknown.values())} 行：{listed}（未计入）")
    warnings += [
        f"{f.day} 新股入账 {f.symbol} {_shares(f.quantity)} 股：对账单中没有对应的缴款，按成本 0 计入"
        for f in done.unpaid
    ]
    if done.newer_cash is not None:
        warnings.append(f"对账单的资金余额早于已记录的现金（{done.newer_cash.as_of}），现金保留不变")
    if done.dry_run:
        lines.append("（试运行：没有写入任何内容）")
    return lines, warnings


def _holding_change(change, dry_run: bool) -> str:
    line = _shares_change(change, dry_run)
    if change.opening:
        line += f"（卖出比成交记录中的买入多 {_shares(change.opening)} 股：按对账单之前已持有、成本按卖出价计）"
    return line


def _shares_change(change, dry_run: bool) -> str:
    before = "未持有" if change.before is None else f"{_shares(change.before)} 股"
    if change.kept:
        return (
            f"持仓 {change.symbol} {change.name}：现有记录 {before}（日期晚于对账单），按对账单推算 "
            f"{_shares(change.after)} 股；保留现有记录"
        )
    verb = "将改为" if dry_run else "已改为"
    return f"持仓 {change.symbol} {change.name}：导入前 {before}，按对账单推算 {_shares(change.after)} 股，{verb} {_shares(change.after)} 股"
