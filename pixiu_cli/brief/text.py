"""The brief's fact section as text: what `pixiu brief` prints and what the model is given
to write from. Every figure here comes from BriefFacts; stored text (news titles, the
user's own notes) is quoted as data."""

from __future__ import annotations

from pixiu_cli.brief.facts import BriefFacts, HoldingMove, RuleAtRisk
from pixiu_cli.conversation.context.market_review import NOTHING_STORED, review_facts
from pixiu_cli.conversation.context.quoting import defuse, quote_data
from pixiu_cli.conversation.context.values import cash_said, sessions_said, show_number, show_price, skipped_said
from pixiu_cli.kernel.vocabulary import BRIEF_FACTS, side_name
from pixiu_cli.market.analytics.stated_rules import CAP, PLAN_ABOVE, PLAN_BELOW, ROLE_CAP, STOP

NONE = "- 无"
ROLE_NAMES = {"core": "核心仓", "satellite": "卫星仓"}


def money(value: float) -> str:
    return f"{value:,.2f}"


def signed(value: float) -> str:
    return f"{value:+,.2f}"


def pct(value: float) -> str:
    return f"{value * 100:+.2f}%"


def weight(value: float) -> str:
    return f"{value * 100:.1f}%"


def _stamp(value: str | None) -> str:
    return (value or "时间未知")[:16].replace("T", " ")


def _as_of(f: BriefFacts) -> str:
    """As of the newest stored bar, and how far behind the sessions closed since it is."""
    if f.session is None:
        return "截至：没有已存的行情（持仓按成本计）"
    said = [sessions_said("行情已过期", f.stale_days, f.calendar_note is not None)] if f.stale_days else []
    said += [f.calendar_note] if f.calendar_note else []
    return f"截至 {f.session} 收盘" + (f"（{'；'.join(said)}）" if said else "")


def _header(f: BriefFacts) -> list[str]:
    previous = (
        f"上次简报 {_stamp(f.previous.created_at)}"
        if f.previous
        else "首份简报：按上一根日线比较，交易、预警和新闻看近 1 天"
    )
    lines = [BRIEF_FACTS, _as_of(f), f"生成于 {_stamp(f.created_at)}；{previous}"]
    unpriced = [m for m in f.moves if not m.priced]
    total = f"组合：有行情的持仓 {len(f.priced)} 只，市值 {money(f.market_value)}"
    if f.change is not None:
        total += f"，较参考收盘 {signed(f.change)}" + (f"（{pct(f.change_pct)}）" if f.change_pct is not None else "")
    if unpriced:
        total += f"；无行情 {len(unpriced)} 只，按成本计 {money(sum(m.value for m in unpriced))}"
    skipped = f.account.get("skipped_rows")
    return [*lines, total + _cash(f.account.get("cash")), *(["注意：" + skipped_said(skipped)] if skipped else [])]


def _cash(cash: dict | None) -> str:
    """The cash with the day it is as of, as `pixiu holdings` says it."""
    if cash is None:
        return "；现金未知，仓位按持仓合计计算"
    amounts = money(cash["amount"]), money(cash["stated_amount"])
    return "；" + cash_said(amounts[0], cash["stated_as_of"], amounts[1], cash["rolled"], cash["missing"])


def _move_line(m: HoldingMove) -> str:
    head = f"- {m.symbol} {defuse(m.name)}"
    if not m.priced:
        return f"{head}：无行情数据；按成本计 {money(m.value)}，仓位 {weight(m.weight)}"
    stale = f"，{sessions_said('落后', m.stale_days, m.stale_at_least)}" if m.stale_days else ""
    line = f"{head}：收盘 {m.close:.2f}（{m.as_of}{stale}）"
    if m.change is not None:
        line += f"，较 {m.ref_close:.2f}（{m.ref_date}）" + (
            f" {pct(m.change_pct)}" if m.change_pct is not None else ""
        )
        line += f"，盈亏变动 {signed(m.change)}"
    line += f"；市值 {money(m.value)}，仓位 {weight(m.weight)}"
    if m.pnl is not None:
        line += f"，浮动盈亏 {signed(m.pnl)}" + (f"（{pct(m.pnl_pct)}）" if m.pnl_pct is not None else "")
    return line


def _risk_line(r: RuleAtRisk) -> str:
    rule, origin = r.rule, f"（{defuse(r.rule.origin)}：{quote_data(r.rule.text)}）"
    if rule.kind == CAP:
        return f"- 仓位上限：{r.symbol} 仓位 {weight(r.actual)}，超过上限 {weight(rule.level)}{origin}"
    if rule.kind == ROLE_CAP:
        role = ROLE_NAMES.get(rule.role or "", rule.role or "")
        return f"- 仓位上限：{role}合计 {weight(r.actual)}，超过上限 {weight(rule.level)}{origin}"
    if rule.kind == STOP:
        return f"- 止损：{r.symbol} 收盘 {r.actual:.2f}，已跌破止损位 {rule.level:.2f}{origin}"
    side = {PLAN_BELOW: "已回落到", PLAN_ABOVE: "已涨到"}[rule.kind]
    return f"- 计划价位：{r.symbol} 收盘 {r.actual:.2f}，{side}计划价 {rule.level:.2f}{origin}"


def _events(f: BriefFacts) -> list[str]:
    trades = [
        f"- {side_name(d.side)} {d.symbol} {show_number(d.quantity)} 股 @ {show_price(d.price)}（{_stamp(d.decided_at)}）"
        for d in f.trades
    ]
    alerts = [f"- {a.symbol or '组合'} {quote_data(a.message)}（{_stamp(a.triggered_at)}）" for a in f.alerts]
    signals = [f"- {s.symbol}：{s.before or '无'} → {s.after or '无'}（{s.as_of[:10]}）" for s in f.signals]
    news = [
        f"- [{n.layer or '混合'}] {n.symbol} {quote_data(n.title)}（{quote_data(n.source or '来源未知')}，{_stamp(n.published_at)}）"
        for n in f.news
    ]
    return [
        "交易（自上次简报）：",
        *(trades or [NONE]),
        "预警（自上次简报，按触发时间）：",
        *(alerts or [NONE]),
        "信号方向变化：",
        *(signals or [NONE]),
        "新闻与公告（自上次简报）：",
        *(news or [NONE]),
    ]


def _market(f: BriefFacts) -> list[str]:
    if f.market is None:
        return []
    if f.market.empty:  # one line, not what is published elsewhere
        return [f"市场概况：{NOTHING_STORED}"]
    return ["市场概况（各项注明日期和来源）：", *(f"- {fact.text}" for fact in review_facts(f.market))]


def fact_lines(f: BriefFacts) -> list[str]:
    return [
        *_header(f),
        *_market(f),
        "持仓：",
        *(_move_line(m) for m in f.moves),
        *_events(f),
        "纪律与计划风险（按你自己写下的上限、止损和计划价，对照已存收盘价）：",
        *([_risk_line(r) for r in f.risks] or ["- 没有触发"]),
    ]
