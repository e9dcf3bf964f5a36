"""The market review as dated facts: the compact `## 市场概况` section a question about the
market as a whole gets, and the same lines for the brief and `pixiu market`. Each figure
names its session and source; a stored session older than the last close is marked as old,
and a series that is no longer published says so instead of showing zeros."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from pixiu_cli.conversation.context.block import BlockItem, Section
from pixiu_cli.conversation.context.fundamentals import pct, yi
from pixiu_cli.conversation.context.layers import FreshnessRule, stale_label
from pixiu_cli.conversation.context.quoting import defuse
from pixiu_cli.market.review.breadth import MarketReview
from pixiu_cli.market.review.model import IndustryMove

KEY = "market"
TITLE = "市场概况"
PRIORITY = 89  # the subject of the question, like an asked-about stock (90)
EMPTY_PRIORITY = 35  # nothing stored: a line saying so goes before the reports do
FRESH = FreshnessRule(1, trading=True)  # yesterday's close is old news by the next close
FACT = "事实"
NOTHING_STORED = (
    "没有已存的指数日线和全市场快照：pixiu data sync 同步指数基准，"
    "pixiu data sync --market 同步全市场涨跌与行业板块（需要 akshare）"
)


@dataclass(frozen=True)
class Fact:
    text: str
    as_of: str | None  # YYYY-MM-DD


def _indexes(review: MarketReview) -> list[Fact]:
    if not review.indexes:
        return [Fact("指数：没有已存的指数日线（pixiu data sync 会同步沪深300、上证指数、创业板指）", None)]
    parts = []
    for m in review.indexes:
        move = (
            f"，{pct(m.change, True)}，前收 {m.previous_close:,.2f}（{m.previous_date}）"
            if m.change is not None
            else ""
        )
        parts.append(f"{m.name} {m.close:,.2f}（{m.date} 收盘{move}）")
    sources = sorted({defuse(m.source) for m in review.indexes if m.source})
    missing = f"；没有日线：{'、'.join(review.missing)}" if review.missing else ""
    newest = max(m.date for m in review.indexes)
    return [Fact(f"指数：{'；'.join(parts)}（来源 {'、'.join(sources) or '未知'}）{missing}", newest)]


def _breadth(review: MarketReview) -> list[Fact]:
    s = review.snapshot
    if s is None:
        return [Fact("全市场涨跌与行业板块：没有已存的快照（pixiu data sync --market 获取，需要 akshare）", None)]
    b = s.breadth
    when = "收盘" if b.closed else f"盘中 {b.taken_at[11:16]} "
    text = (
        f"全市场（{b.session} {when}快照，来源 {defuse(b.source)}，{b.stocks:,} 只有成交）：上涨 {b.advancers:,} 家，"
        f"下跌 {b.decliners:,} 家，平盘 {b.flat:,} 家；涨停 {b.limit_up:,} 家，跌停 {b.limit_down:,} 家；"
        f"成交额 {yi(b.turnover)}"
    )
    if b.suspended:
        text += f"；停牌或无成交 {b.suspended:,} 只"
    return [Fact(text, b.session)]


def _board(i: IndustryMove, leader: bool = True) -> str:
    led = f"，领涨 {defuse(i.leader)} {pct(i.leader_change, True)}" if leader and i.leader else ""
    return f"{defuse(i.name)} {pct(i.change, True)}{led}"


def _industries(review: MarketReview) -> list[Fact]:
    if review.snapshot is None or not review.snapshot.industries:
        return []
    session = review.snapshot.breadth.session
    source = defuse(review.snapshot.industries[0].source)
    out = [Fact(f"最强行业（{session}，来源 {source}）：{'；'.join(_board(i) for i in review.strongest())}", session)]
    weakest = review.weakest()
    if weakest:
        out.append(Fact(f"最弱行业（{session}）：{'；'.join(_board(i, False) for i in weakest)}", session))
    return out


def review_facts(review: MarketReview) -> list[Fact]:
    """Most important first: the indexes, the breadth, the industries, what is not published."""
    gone = [Fact(f"{d.name}：{d.note}", None) for d in review.discontinued]
    if review.empty:
        return [Fact(NOTHING_STORED, None), *gone]
    return [*_indexes(review), *_breadth(review), *_industries(review), *gone]


def market_section(review: MarketReview, today: date) -> Section:
    items = []
    for fact in review_facts(review):
        as_of = date.fromisoformat(fact.as_of) if fact.as_of else None
        stale = stale_label(as_of, today, FRESH) if as_of else None
        items.append(BlockItem(fact.text, FACT, fact.as_of, None, stale))
    priority = EMPTY_PRIORITY if review.empty else PRIORITY
    return Section(KEY, TITLE, tuple(items), priority, note="全市场层面的事实，pixiu 从已存数据整理")


def long_form(review: MarketReview) -> list[str]:
    """Every fact, then every stored industry board (for `load_context`)."""
    lines = [fact.text for fact in review_facts(review)]
    if review.snapshot is not None and review.snapshot.industries:
        lines.append(f"全部行业板块（{review.snapshot.breadth.session}，按涨跌幅）：")
        lines += [f"- {_board(i)}" for i in sorted(review.snapshot.industries, key=lambda i: -(i.change or 0))]
    return lines
