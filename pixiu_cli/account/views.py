"""What `pixiu holdings|trades|trades import` and `/holdings`, `/trades` show, on top of the
renderer's primitives; the same functions for the CLI and the REPL."""

from __future__ import annotations

from dataclasses import asdict

from pixiu_cli.account.model import COST_METHOD_NAMES, KIND_NAMES
from pixiu_cli.conversation.context.quoting import cash_said, sessions_said, skipped_said
from pixiu_cli.kernel.render import Renderer
from pixiu_cli.kernel.vocabulary import ROLE_NAMES


def _money(value: float | None) -> str:
    return "—" if value is None else f"{value:,.2f}"


def _signed(value: float | None) -> str:
    return "—" if value is None else f"{value:+,.2f}"


def _shares(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f}" if float(value).is_integer() else f"{value:,.4g}"


def _close(h: dict) -> str:
    if not h["priced"]:
        return "无行情（按成本计）"
    stale = f"，{sessions_said('过期', h['stale_days'], h['stale_at_least'])}" if h["stale_days"] else ""
    return f"{h['last_close']:.2f}（{h['close_date']}{stale}）"


def _pct(value: float | None) -> str:
    return f"（{value * 100:+.1f}%）" if value is not None else ""


def holdings_rows(record: dict) -> list[list[str]]:
    """One row a holding, from the account's record (services/account.py account_record)."""
    return [
        [
            f"{h['symbol']} {h['name']}",
            _shares(h["shares"]),
            _money(h["cost"]),
            _close(h),
            _money(h["value"]),
            _signed(h["unrealised_pnl"]) + _pct(h["unrealised_pct"]),
            _signed(h["realised_pnl"]),
            _signed(h["holding_pnl"]),
            f"{h['weight'] * 100:.1f}%",
        ]
        for h in record["holdings"]
    ]


def cash_line(record: dict) -> str:
    """The cash and total assets, saying what the figure is as of and what it leaves out."""
    cash = record["cash"]
    if cash is None:
        return "现金：未知（pixiu cash set 金额，或导入带资金余额的对账单）；仓位按股票市值计"
    said = cash_said(
        _money(cash["amount"]), cash["stated_as_of"], _money(cash["stated_amount"]), cash["rolled"], cash["missing"]
    )
    return f"{said}；总资产 {_money(record['total_assets'])}；仓位按总资产计"


def accounts_cash_line(record: dict) -> str | None:
    """Each account's cash, when the record adds up several accounts (None for one)."""
    accounts = record.get("accounts") or []
    if len(accounts) < 2:
        return None
    each = "；".join(f"{a['name']} {_money(a['cash']['amount']) if a['cash'] else '未知'}" for a in accounts)
    return f"各账户现金：{each}（合计为各账户之和）"


def holdings_summary(record: dict) -> list[str]:
    method = COST_METHOD_NAMES[record["cost_method"]]
    at_cost = f"（其中 {record['unpriced']} 只无行情，按{method}计）" if record["unpriced"] else ""
    lines = [f"股票市值 {_money(record['stock_value'])}{at_cost}", cash_line(record)]
    if each := accounts_cash_line(record):
        lines.append(each)
    if record["closed"]:
        closed = "、".join(f"{p['symbol']} {p['name']} {_signed(p['realised_pnl'])}" for p in record["closed"])
        lines.append(f"已清仓：{closed}")
    left_out = f"，不含 {record['unpriced']} 只无行情的持仓" if record["unpriced"] else ""
    lines.append(
        f"浮动盈亏合计 {_signed(record['unrealised_pnl'])}（按持仓均价{left_out}）；已实现盈亏合计 {_signed(record['realised_pnl'])}"
        "（卖出对持仓均价的盈亏与股息，扣费用）；持仓盈亏 = 市值 − 摊薄成本，已含已实现部分，不可与两者相加"
    )
    lines.append(f"成本列为{method}（config.toml [account] cost_method = diluted 摊薄 | average 均价）")
    return lines


def _skipped(renderer: Renderer, rows) -> None:
    """Stored rows the figures leave out, said wherever the account is shown."""
    if rows:
        renderer.warn(skipped_said(rows))


def show_holdings(renderer: Renderer, record: dict, spell=None) -> None:
    _skipped(renderer, record.get("skipped_rows"))
    if not record["holdings"] and record["cash"] is None and not record["closed"]:
        renderer.info("还没有持仓：pixiu trades import 交割单.csv 导入券商对账单，或 pixiu trade buy 代码 数量 价格")
        return
    columns = [
        "股票",
        "股数",
        COST_METHOD_NAMES[record["cost_method"]],
        "最新收盘",
        "市值",
        "浮动盈亏",
        "已实现",
        "持仓盈亏",
        "仓位",
    ]
    which = f"账户「{record['account']}」，" if record.get("account") else ""
    renderer.table(f"持仓（{which}{len(record['holdings'])} 只）", columns, holdings_rows(record))
    for line in holdings_summary(record):
        renderer.line(line)
    if record.get("risk") and record["holdings"]:
        renderer.line()
        for line in risk_lines(record["risk"]):
            renderer.line(line)


TOP_INDUSTRIES = 5  # the rest in one figure


def _weight(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


def _industries_line(risk: dict) -> str:
    weight = "weight_of_assets" if risk["basis"] == "total_assets" else "weight_of_stocks"
    shown = risk["industries"][:TOP_INDUSTRIES]
    parts = [f"{w['industry']} {_weight(w[weight])}" for w in shown]
    rest = risk["industries"][TOP_INDUSTRIES:]
    if rest:
        parts.append(f"其余 {len(rest)} 个行业 {_weight(sum(w[weight] for w in rest))}")
    return "行业：" + "、".join(parts)


def _cap_subject(cap: dict) -> str:
    """What the cap bounds, with its figure."""
    actual = _weight(cap["actual"])
    kind = cap["kind"]
    if kind == "cap":
        stock = " ".join(filter(None, (cap["symbol"], cap["name"]))) or "无持仓"
        return f"{'最大 ' if cap['every_stock'] else ''}{stock} {actual}"
    if kind == "role_cap":
        return f"{ROLE_NAMES.get(cap['role'], cap['role'])}合计 {actual}"
    if kind == "industry_cap":
        return f"{'、'.join(cap['industries'])}合计 {actual}"
    if kind == "total_cap":
        return f"股票合计 {actual}"
    return f"现金 {actual}"


def _cap_verdict(cap: dict) -> str:
    if cap["within"] is None:
        return "现金未知，无法核对"
    if cap["within"]:
        return "符合"
    points = f"{cap['beyond'] * 100:.1f} 个百分点"
    verdict = f"低于下限 {points}" if cap["kind"] == "cash_min" else f"超出 {points}"
    if len(cap["over"]) > 1:
        verdict += f"（共 {len(cap['over'])} 只超出：{'、'.join(cap['over'])}）"
    return verdict


def cap_line(cap: dict) -> str:
    """One stated cap against the account: 「单票不超过两成」（笔记 n3）上限 20%：最大 600519 贵州茅台 32.0%，超出 12.0 个百分点"""
    bound = "下限" if cap["kind"] == "cash_min" else "上限"
    return (
        f"「{cap['text']}」（{cap['origin']}）{bound} {cap['limit'] * 100:g}%：{_cap_subject(cap)}，{_cap_verdict(cap)}"
    )


def risk_lines(risk: dict) -> list[str]:
    """The 风险分布 part of `pixiu holdings`: industries, the largest stock, the user's caps."""
    basis = "仓位按总资产计" if risk["basis"] == "total_assets" else "现金未知，仓位按股票市值计"
    lines = [f"风险分布（{basis}）", "  " + _industries_line(risk)]
    largest = risk["largest"]
    if largest:
        lines.append(
            f"  最大单只：{largest['symbol']} {largest['name']} {_weight(largest['weight'])}；"
            f"前三合计 {_weight(largest['top3_weight'])}"
        )
    if risk["caps"]:
        lines += ["  你定的上限："] + [f"    {cap_line(cap)}" for cap in risk["caps"]]
    else:
        lines.append("  没有可核对的仓位上限（如记下「单只股票仓位不超过20%」「银行股不超过四成」「现金至少留10%」）")
    return lines


def show_trades(renderer: Renderer, trades, spell=None) -> None:
    _skipped(renderer, [asdict(row) for row in getattr(trades, "skipped", ())])
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
            (_money(t.fees) + ("（估算）" if t.fees_estimated else "")) if t.fees else "",
            _money(t.balance) if t.balance is not None else "",
            t.origin,
            t.ref or "",
        ]
        for t in trades
    ]
    columns = ["日期", "业务", "股票", "数量", "价格", "金额", "费用", "资金余额", "来源", "ID"]
    if getattr(trades, "several", False):  # fills of several accounts: each says whose it is
        columns.append("账户")
        for row, t in zip(rows, trades):
            row.append(t.broker_account or "")
    renderer.table(f"成交与资金流水（{len(trades)} 笔）", columns, rows)


def import_lines(done) -> tuple[list[str], list[str]]:
    """(summary lines, warnings) of a statement import or its dry run."""
    verb = "将" if done.dry_run else "已"
    matched = f"，{verb}与对话中记录的同一笔交易合并 {len(done.matched)} 笔（补上费用和编号）" if done.matched else ""
    lines = [f"识别为{done.layout}：{verb}新增 {done.added} 笔{matched}，已有 {done.duplicates} 笔（不重复导入）"]
    if done.created:
        lines.append(
            f"对账单的股东代码/资金账号 {done.created} 不属于已有账户：{verb}新建账户「{done.broker_account}」"
            f"（之后可用 --account {done.broker_account} 指定）"
        )
    elif done.several:
        lines.append(f"账户：{done.broker_account}")
    if done.dry_run:
        lines += [
            f"  + {f.day} {KIND_NAMES.get(f.kind, f.kind)} {f.symbol or ''} {_shares(f.quantity) if f.quantity else ''}"
            f" {_money(f.amount)}".rstrip()
            for f in done.listed
        ]
    lines += [
        f"新股 {f.symbol} {f.name or ''} {_shares(f.quantity)} 股：{verb}与之前导入的缴款或入账合为一笔"
        f"（{f.day} 缴款 {_money(f.amount)}，每股 {f.price:g}）"
        for f in done.joined
    ]
    lines += [
        f"新股 {f.symbol} {f.name or ''} {f.day} 缴款 {_money(f.amount)}：股份尚未入账（不计入持仓），"
        "导入含新股入账的对账单后合为一笔"
        for f in done.awaiting
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
        f"{f.day} 新股入账 {f.symbol} {_shares(f.quantity)} 股：对账单和已导入的记录中都没有对应的缴款，暂按成本 0 计入"
        "（导入含缴款的对账单后自动合并）"
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
            f"{_shares(change.stated)} 股；保留现有记录"
        )
    verb = "将改为" if dry_run else "已改为"
    line = f"持仓 {change.symbol} {change.name}：导入前 {before}，按对账单推算 {_shares(change.stated)} 股，{verb} {_shares(change.after)} 股"
    if change.unbooked:
        line += f"（含行情数据中对账单未记的送转股 {_shares(change.unbooked)} 股）"
    return line


def show_import(renderer: Renderer, done, spell=None) -> None:
    lines, warnings = import_lines(done)
    for line in lines:
        renderer.line(line)
    for warning in warnings:
        renderer.warn(warning)


def show_cash(renderer: Renderer, record: dict, spell=None) -> None:
    _skipped(renderer, record.get("skipped_rows"))
    which = f"账户「{record['account']}」" if record.get("account") else ""
    renderer.info(which + cash_line(record))
    if each := accounts_cash_line(record):
        renderer.line(each)


def show_accounts(renderer: Renderer, accounts: list[dict], spell=None) -> None:
    rows = [
        [
            a["name"] + ("（默认）" if a["default"] else ""),
            a["broker"] or "—",
            "、".join(filter(None, [a["fund_account"], *a["shareholder_codes"]])) or "—",
            str(a["holdings"]),
            _money(a["stock_value"]),
            _money(a["cash"]),
        ]
        for a in accounts
    ]
    renderer.table(
        f"账户（{len(accounts)} 个）", ["账户", "客户端", "资金账号/股东代码", "持仓", "股票市值", "现金"], rows
    )
    if len(accounts) > 1:
        renderer.line("holdings / cash / trades 默认显示所有账户合计；--account 名称 只看一个账户")


def show_cash_set(renderer: Renderer, cash, spell=None) -> None:
    renderer.info(f"已设置现金 {cash.amount:,.2f}（截至 {cash.as_of}）")


def show_recorded_trade(renderer: Renderer, recorded, spell=None) -> None:
    renderer.info(recorded.notice())


def trades_record(trades) -> list[dict]:
    return [t.record() for t in trades]


def show_cash_moved(renderer: Renderer, moved, record: dict, spell=None) -> None:
    verb = "转入" if moved.kind == "transfer_in" else "转出"
    renderer.info(f"已记录 {moved.day} 银证{verb} {moved.amount:,.2f}")
    renderer.line(cash_line(record))


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:+.2f}%"


def performance_lines(p) -> list[str]:
    """The figures of `pixiu performance` in words, the same for the CLI, the REPL and the brief."""
    lines = [
        f"账户收益 · {p.period.label}（{p.first_day} 至 {p.last_day}）",
        f"时间加权收益率 {_rate(p.twr)}；资金加权收益率 年化 {_rate(p.irr)}，区间 {_rate(p.irr_period)}",
        f"盈亏 {_signed(float(p.profit))} 元（期初 {_money(float(p.start_value))} → 期末 {_money(float(p.end_value))}；"
        f"{'买入' if p.stocks_only else '转入'} {_money(float(p.money_in))}，{'卖出与分红' if p.stocks_only else '转出'} "
        f"{_money(float(p.money_out))}）",
    ]
    risk = []
    if p.drawdown is not None:
        risk.append(f"最大回撤 {_rate(p.drawdown.depth)}（{p.drawdown.peak} → {p.drawdown.trough}）")
    if p.volatility is not None:
        risk.append(f"年化波动率 {p.volatility * 100:.2f}%")
    if risk:
        lines.append("；".join(risk))
    if len(p.months) > 1:
        best, worst = p.best_month, p.worst_month
        lines.append(f"最好的月份 {best.month} {_rate(best.twr)}，最差的月份 {worst.month} {_rate(worst.twr)}")
    if p.benchmark is not None:
        if p.benchmark_return is None:
            lines.append(f"{p.benchmark.name}：{p.benchmark_note}")
        else:
            gap = p.excess * 100
            said = f"跑赢 {gap:.2f} 个百分点" if gap > 0 else f"跑输 {-gap:.2f} 个百分点" if gap < 0 else "持平"
            note = f"（{p.benchmark_note}）" if p.benchmark_note else ""
            lines.append(f"同期{p.benchmark.name} {_rate(p.benchmark_return)}{note}，{said}")
    return lines


def performance_notes(p) -> list[str]:
    notes = []
    if p.stocks_only:
        notes.append(
            "没有设置过现金余额：只算股票部分，买入视为资金投入，卖出、分红视为取出"
            "（pixiu cash set 或 cash in / out 之后按整个账户算）"
        )
    if p.carried_days:
        notes.append(f"有 {p.carried_days} 个交易日有持仓股票没有当日收盘价，按此前最近的收盘价（或买入价）计")
    return notes


def show_performance(renderer: Renderer, p, chart: str | None, spell=None) -> None:
    for line in performance_lines(p):
        renderer.line(line)
    if chart:
        renderer.chart(chart)
    if len(p.months) > 1:
        renderer.table("月度收益率（%）", ["年份", *(f"{m}月" for m in range(1, 13)), "合计", "盈亏"], month_rows(p))
    for note in performance_notes(p):
        renderer.warn(note)


def month_rows(p) -> list[list[str]]:
    """A year a row, its months' returns across and the year's within the period at the end (a month outside the
    period is blank)."""
    months = {m.month: m for m in p.months}
    rows = []
    for year in p.years:
        cells = [months.get(f"{year.month}-{m:02d}") for m in range(1, 13)]
        rows.append(
            [
                year.month,
                *("" if c is None else f"{c.twr * 100:+.1f}" for c in cells),
                f"{year.twr * 100:+.1f}",
                _signed(float(year.profit)),
            ]
        )
    return rows


def growth_chart(p, *, width: int = 100, height: int = 24, color: bool = True) -> str:
    """The account's growth of 1 against the benchmark's (plotext, imported when drawn). The
    names are in the title, not plotext's legend, which counts a Chinese character as one cell."""
    import plotext as plt

    bench = p.benchmark.name if p.benchmark is not None and p.benchmark_return is not None else None
    title = f"账户净值（{'青' if color else '实线'}）" + (
        f" 对比 {bench}（{'黄' if color else '点'}）" if bench else ""
    )
    plt.clf()
    plt.limit_size(False, False)
    plt.plot_size(width, max(8, height - 1))
    plt.theme("pro" if color else "clear")
    xs = list(range(len(p.daily)))
    plt.plot(xs, [g for _, _, g in p.daily], color="cyan", marker="braille" if color else "hd")
    if bench:
        points = [(x, b) for x, b in zip(xs, p.benchmark_daily) if b is not None]
        plt.plot([x for x, _ in points], [b for _, b in points], color="yellow", marker="braille" if color else "dot")
    step = max(1, len(xs) // 4)
    plt.xticks(xs[::step], [p.daily[i][0] for i in xs[::step]])
    text = plt.build()
    return f"{title}\n{text}"
