"""The 基本面 part of a stock's section (a few dated lines: valuation with its percentiles
over the stock's own history, the newest report period, dividends, the report calendar),
the long form `load_context` returns, and one line a holding for a portfolio question about
valuation. Every figure is the store's or computed from it (market/fundamentals.py); the
source's own words (a dividend plan, a forecast's abstract) are quoted data."""

from __future__ import annotations

from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from pixiu_cli.conversation.context.block import BlockItem, Section
from pixiu_cli.conversation.context.layers import FreshnessRule, stale_label
from pixiu_cli.conversation.context.quoting import defuse, label, quote_data
from pixiu_cli.market.fundamentals.model import NOTICE_NAMES, FinancialReport, Percentile, ReportNotice, period_name
from pixiu_cli.market.fundamentals.sources import DividendYield, MarketValue, StockFundamentals

FACT = "事实"
MARK = "基本面"
VALUATION_FRESH = FreshnessRule(5, trading=True)  # like a signal: a week of sessions
HOLDINGS_KEY = "holdings_fundamentals"
HOLDINGS_PRIORITY = 73  # just above the portfolio overview it goes with
_YI = Decimal(100_000_000)


def yi(value: Decimal | None) -> str:
    """Yuan as 亿元, two places (64627000000 → 646.27 亿元)."""
    if value is None:
        return "—"
    return f"{(value / _YI).quantize(Decimal('0.01'), ROUND_HALF_UP):,} 亿元"


def pct(value: Decimal | None, signed: bool = False) -> str:
    if value is None:
        return "—"
    shown = (value * 100).quantize(Decimal("0.01"), ROUND_HALF_UP)
    return f"{shown:+}%" if signed else f"{shown}%"


def ratio(value: Decimal | None) -> str:
    return "—" if value is None else f"{value.quantize(Decimal('0.01'), ROUND_HALF_UP):,}"


def rank(p: Percentile | None) -> str:
    if p is None:
        return ""
    shown = (p.rank * 100).quantize(Decimal("1"), ROUND_HALF_UP)
    return f"{p.window}分位 {shown}%（{p.days:,} 个交易日）"


def _multiple(name: str, value: Decimal | None, p: Percentile | None) -> str:
    if value is None:
        return f"{name} —"
    if value <= 0:
        return f"{name} {ratio(value)}（为负：亏损，不计分位）"
    if p is None:
        return f"{name} {ratio(value)}（已存历史不足，不计分位）"
    return f"{name} {ratio(value)}（{rank(p)}）"


def cash_words(y: DividendYield) -> str:
    """What the yield's cash is: per share as paid, or per share of today after a 送转."""
    return "每股派现（按其后送转折算为今日每股）" if y.adjusted else "每股派现"


def shares_words(value: MarketValue) -> str:
    if value.share_ratio == 1:
        return "收盘价×报告期股本"
    return f"收盘价×报告期股本×其后送转 {value.share_ratio.normalize():f} 倍"


def valuation_text(f: StockFundamentals) -> str:
    v = f.valuation
    parts = [_multiple("PE(TTM)", v.pe_ttm, f.pe), _multiple("PB(MRQ)", v.pb_mrq, f.pb), f"PS(TTM) {ratio(v.ps_ttm)}"]
    if f.dividend_yield is not None:
        y = f.dividend_yield
        parts.append(
            f"股息率 {pct(y.value)}（近 12 个月{cash_words(y)} {ratio(y.cash)} 元 ÷ 收盘 {ratio(y.close)}）"
            if y.payments
            else "股息率 0（近 12 个月没有派现）"
        )
    if f.value is not None:
        how = f"，{shares_words(f.value)}" if f.value.computed else ""
        parts.append(f"总市值 {yi(f.value.total)}，流通市值 {yi(f.value.floating)}{how}")
    return f"{MARK}·估值（{v.date} 收盘，来源 {defuse(v.source)}）：" + "，".join(parts)


def report_text(r: FinancialReport) -> str:
    published = f"{r.published} 披露" if r.published else "披露日数据源未提供"
    cash = (
        f"经营现金流 {yi(r.operating_cash_flow)}"
        if r.operating_cash_flow is not None
        else f"经营现金流/净利润 {ratio(r.cfo_to_profit)}"
    )
    figures = [
        f"营收 {yi(r.revenue)}（同比 {pct(r.revenue_yoy, True)}）",
        f"净利润 {yi(r.net_profit)}（同比 {pct(r.net_profit_yoy, True)}）",
        f"ROE(报告期) {pct(r.roe)}",
        f"毛利率 {pct(r.gross_margin)}",
        f"资产负债率 {pct(r.debt_ratio)}",
        cash,
    ]
    return (
        f"{MARK}·财报 {period_name(r.period)}（报告期 {r.period}，{published}，来源 {defuse(r.source)}）："
        + "，".join(figures)
    )


def dividend_text(f: StockFundamentals) -> str:
    paid = [d for d in f.dividends if d.ex_date]
    plans = [d for d in f.dividends if not d.ex_date and (d.cash or d.summary)]
    parts = []
    for d in paid[:2]:
        words = quote_data(d.summary) if d.summary else f"每股派现 {ratio(d.cash)} 元"
        parts.append(f"{words}，除权除息日 {d.ex_date}")
    for d in plans[:1]:
        words = quote_data(d.summary) if d.summary else f"每股派现 {ratio(d.cash)} 元"
        parts.append(f"待实施 {words}（{d.announced or '公告日未知'} 公告）")
    source = defuse(f.dividends[0].source) if f.dividends else ""
    return f"{MARK}·分红（来源 {source}）：" + "；".join(parts) if parts else f"{MARK}·分红：近几年没有分红记录"


def _notice_text(n: ReportNotice) -> str:
    head = f"{NOTICE_NAMES.get(n.kind, n.kind)} {period_name(n.period)}（{n.published or '日期未知'}）"
    if n.change_low is not None or n.change_high is not None:
        head += f" 净利润同比 {pct(n.change_low, True)}～{pct(n.change_high, True)}"
    return head + (f" {quote_data(n.summary)}" if n.summary else "")


def calendar_text(f: StockFundamentals, today: date) -> str:
    latest, upcoming = f.latest, f.next_report
    parts = []
    if latest is not None:
        parts.append(f"上一份 {period_name(latest.period)} {latest.published or '披露日未知'}")
    if upcoming is not None:
        late = "（已过，尚未同步到）" if f.overdue(today) else ""
        parts.append(f"下一份 {period_name(upcoming[0])}，法定披露截止 {upcoming[1].isoformat()}{late}")
    newer = [n for n in f.notices if latest is None or n.period > latest.period]
    parts += [_notice_text(n) for n in newer[:2]]
    return f"{MARK}·报告日：" + "；".join(parts)


def fundamentals_items(f: StockFundamentals, today: date) -> list[BlockItem]:
    """The part a stock's section gains for a valuation or financial question."""
    if f.empty:
        return [
            BlockItem(f"{MARK}：数据库中没有 {f.symbol} 的估值和财报（pixiu data sync --fundamentals {f.symbol} 获取）")
        ]
    items = []
    if f.valuation is not None:
        as_of = date.fromisoformat(f.valuation.date)
        items.append(
            BlockItem(valuation_text(f), FACT, f.valuation.date, None, stale_label(as_of, today, VALUATION_FRESH))
        )
    if f.latest is not None:
        stale = f"下一份报告的法定披露截止日 {f.next_report[1].isoformat()} 已过" if f.overdue(today) else None
        items.append(BlockItem(report_text(f.latest), FACT, f.latest.published or f.latest.period, None, stale))
    items.append(BlockItem(dividend_text(f), FACT))
    if f.latest is not None:
        items.append(BlockItem(calendar_text(f, today), FACT, today.isoformat()))
    return items


def long_form(f: StockFundamentals, today: date) -> list[str]:
    """Every stored period and dividend, for `load_context`."""
    if f.empty:
        return [f"数据库中没有 {f.symbol} 的估值和财报（pixiu data sync --fundamentals {f.symbol} 获取）"]
    lines = [valuation_text(f)] if f.valuation else []
    lines += [report_text(r) for r in f.reports]
    lines += [
        f"{MARK}·分红：{quote_data(d.summary) if d.summary else '每股派现 ' + ratio(d.cash) + ' 元'}，"
        f"公告 {d.announced or '日期未知'}，除权除息日 {d.ex_date or '未实施'}（来源 {defuse(d.source)}）"
        for d in f.dividends
    ]
    lines += [f"{MARK}·{_notice_text(n)}（来源 {defuse(n.source)}）" for n in f.notices]
    if f.latest is not None:
        lines.append(calendar_text(f, today))
    return lines


def holding_line(symbol: str, name: str, f: StockFundamentals) -> BlockItem:
    """One holding's valuation in a line, for a portfolio question about valuation."""
    named = f"{defuse(symbol)} {label(name)}".rstrip()
    if f.valuation is None:
        return BlockItem(f"{named}：{MARK}没有存储的估值（pixiu data sync --fundamentals）")
    v = f.valuation
    y = f"，股息率 {pct(f.dividend_yield.value)}" if f.dividend_yield is not None else ""
    pe = f"PE(TTM) {ratio(v.pe_ttm)}" + (f"（{rank(f.pe)}）" if f.pe else "")
    pb = f"PB {ratio(v.pb_mrq)}" + (f"（{rank(f.pb)}）" if f.pb else "")
    return BlockItem(f"{named} {MARK}：{pe}，{pb}{y}（来源 {defuse(v.source)}）", FACT, v.date)


def holdings_section(items: list[BlockItem]) -> Section:
    return Section(HOLDINGS_KEY, "持仓基本面（估值，按仓位从大到小）", tuple(items), HOLDINGS_PRIORITY)
