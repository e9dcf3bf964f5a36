"""What `pixiu fundamentals`, `pixiu market` and the syncs behind them show: tables of one
stock's stored fundamentals, the market review's dated lines, and a line per stock synced."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from pixiu_cli.conversation.context.fundamentals import calendar_text, cash_words, pct, rank, ratio, shares_words, yi
from pixiu_cli.conversation.context.market_review import review_facts
from pixiu_cli.market.fundamentals.model import period_name


@dataclass(frozen=True)
class Table:
    title: str
    headers: list[str]
    rows: list[list[str]]


@dataclass(frozen=True)
class FundamentalsView:
    heading: str
    tables: list[Table]
    lines: list[str]


def _valuation_table(f) -> Table | None:
    v = f.valuation
    if v is None:
        return None
    rows = [
        ["收盘", ratio(v.close), ""],
        [
            "PE(TTM)",
            ratio(v.pe_ttm),
            rank(f.pe) or ("亏损，不计分位" if v.pe_ttm is not None and v.pe_ttm <= 0 else "历史不足，不计分位"),
        ],
        ["PB(MRQ)", ratio(v.pb_mrq), rank(f.pb) or "历史不足，不计分位"],
        ["PS(TTM)", ratio(v.ps_ttm), ""],
        ["市现率(TTM)", ratio(v.pcf_ttm), ""],
    ]
    if f.dividend_yield is not None:
        y = f.dividend_yield
        rows.append(["股息率", pct(y.value), f"近 12 个月{cash_words(y)} {ratio(y.cash)} 元（{y.payments} 次）÷ 收盘"])
    if f.value is not None:
        how = shares_words(f.value) if f.value.computed else "数据源"
        rows += [["总市值", yi(f.value.total), how], ["流通市值", yi(f.value.floating), how]]
    return Table(f"估值（{v.date} 收盘，来源 {v.source}）", ["指标", "数值", "说明"], rows)


def _cash(r) -> str:
    if r.operating_cash_flow is not None:
        return yi(r.operating_cash_flow)
    return f"{ratio(r.cfo_to_profit)} 倍净利" if r.cfo_to_profit is not None else "—"


def _reports_table(f) -> Table | None:
    if not f.reports:
        return None
    rows = [
        [
            period_name(r.period),
            r.published or "—",
            yi(r.revenue),
            pct(r.revenue_yoy, True),
            yi(r.net_profit),
            pct(r.net_profit_yoy, True),
            pct(r.roe),
            pct(r.gross_margin),
            pct(r.debt_ratio),
            _cash(r),
            r.source,
        ]
        for r in f.reports
    ]
    headers = ["报告期", "披露", "营收", "同比", "净利润", "同比", "ROE", "毛利率", "负债率", "经营现金流", "来源"]
    return Table("财报摘要（新的在前）", headers, rows)


def _dividends_table(f) -> Table | None:
    if not f.dividends:
        return None
    rows = [
        [d.announced or "—", d.summary or "—", ratio(d.cash), d.ex_date or "未实施", d.pay_date or "—", d.source]
        for d in f.dividends
    ]
    return Table("分红", ["公告", "方案", "每股派现(税前)", "除权除息日", "派息日", "来源"], rows)


def fundamentals_view(f, name: str | None, today: date) -> FundamentalsView:
    heading = f"{f.symbol} {name or ''}".rstrip() + " · 基本面"
    if f.empty:
        return FundamentalsView(
            heading, [], [f"没有 {f.symbol} 的基本面数据：pixiu data sync --fundamentals {f.symbol}"]
        )
    tables = [t for t in (_valuation_table(f), _reports_table(f), _dividends_table(f)) if t is not None]
    lines = [calendar_text(f, today).removeprefix("基本面·")] if f.latest else []
    sync = f.sync or {}
    if sync.get("last_error"):
        lines.append(
            f"上次同步失败（{sync.get('errored_at') or '时间未知'}）：{sync['last_error']}；显示的是之前存下的数据"
        )
    return FundamentalsView(heading, tables, lines)


def show(renderer, view: FundamentalsView) -> None:
    """`pixiu fundamentals` and /fundamentals alike."""
    renderer.line(view.heading)
    for table in view.tables:
        renderer.table(table.title, table.headers, table.rows)
    for line in view.lines:
        renderer.line(line)


def market_lines(review) -> list[str]:
    return [f"截至 {review.today}：", *(f"- {fact.text}" for fact in review_facts(review))]


def fundamentals_sync_lines(result) -> tuple[list[str], str | None]:
    """A line per stock synced, and one error line for the failures (what was kept stays)."""
    lines = []
    for o in result.outcomes:
        if o.error:
            continue
        if o.reports_fetched:
            latest = f"（最新 {period_name(o.latest_period)}）" if o.latest_period else ""
            lines.append(
                f"{o.symbol} 基本面：估值新增 {o.valuations} 天，报告期 {o.reports} 个{latest}，"
                f"分红 {o.dividends} 条，业绩预告/快报 {o.notices} 条"
            )
        else:
            lines.append(f"{o.symbol} 基本面：估值新增 {o.valuations} 天（财报未到更新时间）")
        lines += o.refused
    failed = result.failed
    error = None
    if failed:
        error = f"基本面（{result.source}）同步失败（{len(failed)} 只）：{failed[0].error}；已保留已存数据"
    return lines, error


def snapshot_line(snapshot) -> str:
    b = snapshot.breadth
    when = "收盘" if b.closed else f"盘中 {b.taken_at[11:16]}"
    return (
        f"市场快照（{b.source}）：{b.session} {when}，{b.stocks:,} 只有成交，上涨 {b.advancers:,} 家，"
        f"下跌 {b.decliners:,} 家，涨停 {b.limit_up:,} 家，跌停 {b.limit_down:,} 家；行业板块 {len(snapshot.industries)} 个"
    )


def kept_lines(kept) -> list[str]:
    """The daily sync's refresh of what is kept beside the bars (services/fundamentals.KeptRefresh)."""
    if kept is None:
        return []
    lines = []
    if kept.fundamentals is not None:
        done, error = fundamentals_sync_lines(kept.fundamentals)
        lines += done + ([error] if error else [])
    lines += [kept.fundamentals_error] if kept.fundamentals_error else []
    lines += [snapshot_line(kept.snapshot), *kept.snapshot.refused] if kept.snapshot is not None else []
    lines += [kept.snapshot_error] if kept.snapshot_error else []
    return lines
