"""The six memory classes (design §3), each on demand and limited, plus the every-turn
sections (time, holdings, persona, summary). Produces `Section`s; `block.assemble` renders
and trims them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache

from pixiu_cli.context.block import BlockItem, Section
from pixiu_cli.context.clock import market_state
from pixiu_cli.context.intent import Intent
from pixiu_cli.context.layers import layer_for
from pixiu_cli.context.quoting import defuse, quote_data
from pixiu_cli.store.domain import DomainStore, Holding, Profile

ROLE_NAMES = {"core": "核心仓", "satellite": "卫星仓"}
SIDE_NAMES = {"buy": "买入", "sell": "卖出"}
NOTE_KIND_NAMES = {"view": "观点", "plan": "计划", "rule": "纪律"}


@dataclass(frozen=True)
class MemoryLimits:
    """Windows (days) and limits of each class; all configurable in config.toml [context]."""

    reports_days: float = 3.0
    reports_limit: int = 3
    decisions_days: float = 7.0
    decisions_limit: int = 5
    alerts_days: float = 1.0
    alerts_limit: int = 5
    notes_days: float = 30.0
    notes_limit: int = 5
    news_days: float = 14.0
    news_per_symbol: int = 3
    per_symbol_limit: int = 3  # the symbol's own notes and decisions inside its section
    budget_tokens: int = 3000
    history_budget_tokens: int = 24000  # past this, an old chunk of history is summarised at once

    @classmethod
    def from_mapping(cls, values: dict) -> "MemoryLimits":
        known = {k: type(getattr(cls(), k))(v) for k, v in values.items() if k in cls.__dataclass_fields__}
        return cls(**known)


def _day(stamp: str | None) -> str | None:
    return stamp[:10] if stamp else None


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


def _num(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def _names(holding: Holding) -> str:
    return _names_text(holding.symbol, holding.name, holding.short_names)


@lru_cache(maxsize=4096)
def _names_text(symbol: str, name: str, short_names: tuple[str, ...]) -> str:
    """Remembered: the same holdings are listed on every turn, hundreds of them."""
    alias = f"（简称：{'、'.join(defuse(n) for n in short_names)}）" if short_names else ""
    return f"{symbol} {defuse(name)}{alias}"


def _holding_text(h: Holding, profile: Profile | None = None) -> str:
    text = f"{_names(h)} · {ROLE_NAMES.get(h.role, h.role)} · {_num(h.shares)} 股 · 成本 {h.cost:.2f}"
    return text + _profile_brief(profile) if profile is not None else text


@lru_cache(maxsize=4096)
def _profile_brief(p: Profile) -> str:
    """The headline figures on the holding's own line, so a portfolio question the intent
    model missed still sees them (graceful degradation; the overview has the rest)."""
    return f" · {defuse(p.strategy)} 年化{_short_pct(p.annual_return)} 回撤{_short_pct(p.max_drawdown)}"


def _short_pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.0f}%"


@lru_cache(maxsize=4096)
def _profile_text(profile: Profile, name: str) -> str:
    label = f"{profile.symbol} {defuse(name)}" if name else profile.symbol
    parts = [f"{label} 回测画像：策略 {defuse(profile.strategy)}"]
    if profile.period:
        parts.append(f"区间 {defuse(profile.period)}")
    parts.append(f"年化 {_pct(profile.annual_return)}，最大回撤 {_pct(profile.max_drawdown)}，"
                 f"胜率 {_pct(profile.win_rate)}，夏普 {_num(profile.sharpe) if profile.sharpe is not None else '—'}")
    if profile.best_role:
        parts.append(f"适合定位 {ROLE_NAMES.get(profile.best_role, profile.best_role)}")
    text = "；".join(parts)
    if profile.conclusion:
        text += f"；结论 {quote_data(profile.conclusion)}"
    return text


def _note_item(note) -> BlockItem:
    kind = NOTE_KIND_NAMES.get(note.note_kind, note.note_kind or "笔记")
    about = f"（{note.symbol}）" if note.symbol else ""
    return BlockItem(f"{kind}{about}：{quote_data(note.text)}", layer_for("user_note"), _day(note.created_at),
                     f"note:{note.id}")


def _decision_item(d, held: dict[str, Holding]) -> BlockItem:
    name = f" {defuse(held[d.symbol].name)}" if d.symbol in held else ""
    reason = f"，理由 {quote_data(d.reason)}" if d.reason else ""
    return BlockItem(f"{SIDE_NAMES.get(d.side, d.side)} {d.symbol}{name} {_num(d.quantity)} 股 @ {d.price:.2f}{reason}",
                     layer_for("decision"), _day(d.decided_at), f"decision:{d.id}")


class MemoryAssembler:
    def __init__(self, domain: DomainStore, limits: MemoryLimits):
        self.domain = domain
        self.limits = limits

    def sections(self, *, now: datetime, symbols: list[str], intent: Intent, holdings: list[Holding],
                 summary: str | None, scene: str | None, overview: bool | None = None) -> list[Section]:
        """overview: inject every holding's profile (default: for a portfolio review)."""
        limits = self.limits
        held = {h.symbol: h for h in holdings}
        until = now.isoformat(timespec="seconds")

        def since(days: float) -> str:
            return (now - timedelta(days=days)).isoformat(timespec="seconds")

        state = market_state(now)
        sections = [Section("time", "当前时间", (BlockItem(state.describe(), "事实"),), 100, trimmable=False)]
        if scene:
            sections.append(Section("scene", "本轮场景", (BlockItem(scene),), 30))
        if summary:
            sections.append(Section("summary", "对话摘要", (BlockItem(quote_data(summary), "混合"),), 75))

        holding_layer = layer_for("holding")  # once, not once per holding (there may be hundreds)
        briefs = self.domain.profiles_for([h.symbol for h in holdings]) if holdings else {}
        with_overview = (intent == Intent.PORTFOLIO_REVIEW if overview is None else overview) and bool(holdings)
        # With the overview the figures are there in full: the holding lines stay short.
        line_briefs = {} if with_overview else briefs
        sections.append(Section("holdings", f"持仓（{len(holdings)} 只）", tuple(
            BlockItem(_holding_text(h, line_briefs.get(h.symbol)), holding_layer, _day(h.updated_at))
            for h in holdings) or
            (BlockItem("数据库中没有持仓记录"),), 80))

        persona = self.domain.persona()
        if persona:
            text = "；".join(f"{defuse(k)}：{quote_data(v)}" for k, v in persona.items())
            sections.append(Section("persona", "投资者画像", (BlockItem(text, "事实"),), 50))

        for symbol in symbols:
            sections.append(self._symbol_section(symbol, held.get(symbol), now, held))
        shown = {i.memory_id for s in sections for i in s.items if i.memory_id}

        if with_overview:
            profiles = briefs
            profile_layer = layer_for("backtest_profile")
            items = []
            for h in holdings:
                p = profiles.get(h.symbol)
                if p is None:
                    items.append(BlockItem(f"{h.symbol} {defuse(h.name)}：数据库中没有回测画像"))
                else:
                    items.append(BlockItem(_profile_text(p, h.name) + f"；当前定位 {ROLE_NAMES.get(h.role, h.role)}",
                                           profile_layer, _day(p.as_of), f"profile:{p.id}"))
            sections.append(Section("portfolio_profiles", "持仓画像概览（组合级问题，全部持仓）", tuple(items), 88))

        reports = self.domain.recent_reports(since(limits.reports_days), until, limits.reports_limit)
        sections.append(Section("reports", "近期报告结论", tuple(
            BlockItem(f"{quote_data(r.title)}：{quote_data(r.conclusion)}", layer_for("report"), _day(r.created_at),
                      f"report:{r.id}") for r in reports), 40,
            note=f"近 {limits.reports_days:g} 天，最多 {limits.reports_limit} 条"))

        decisions = self.domain.recent_decisions(since(limits.decisions_days), until, limits.decisions_limit)
        sections.append(Section("decisions", "近期操作决策", tuple(
            _decision_item(d, held) for d in decisions if f"decision:{d.id}" not in shown), 65,
            note=f"近 {limits.decisions_days:g} 天，最多 {limits.decisions_limit} 条"))

        alerts = self.domain.recent_alerts(since(limits.alerts_days), until, limits.alerts_limit)
        sections.append(Section("alerts", "待办预警", tuple(
            BlockItem((f"{a.symbol} " if a.symbol else "") + quote_data(a.message) +
                      (f"（规则：{quote_data(a.rule)}）" if a.rule else ""),
                      layer_for("alert"), _day(a.triggered_at), f"alert:{a.id}") for a in alerts), 55,
            note=f"近 {limits.alerts_days:g} 天触发，最多 {limits.alerts_limit} 条"))

        notes = self.domain.recent_notes(since(limits.notes_days), until, limits.notes_limit)
        sections.append(Section("notes", "用户观点 / 计划 / 纪律", tuple(
            _note_item(n) for n in notes if f"note:{n.id}" not in shown), 70,
            note=f"用户自己说过的话，近 {limits.notes_days:g} 天，最多 {limits.notes_limit} 条"))
        return sections

    def _symbol_section(self, symbol: str, holding: Holding | None, now: datetime,
                        held: dict[str, Holding]) -> Section:
        limits = self.limits
        name = holding.name if holding else ""
        until = now.isoformat(timespec="seconds")
        items: list[BlockItem] = []
        profile = self.domain.latest_profile(symbol)
        if profile:
            items.append(BlockItem(_profile_text(profile, name), layer_for("backtest_profile"), _day(profile.as_of),
                                   f"profile:{profile.id}"))
        signal = self.domain.latest_signal(symbol)
        if signal:
            parts = "、".join(f"{k} {v}" for k, v in signal.components.items())
            items.append(BlockItem(f"融合信号 {signal.score:+.2f}{' ' + defuse(signal.direction) if signal.direction else ''}"
                                   + (f"（{quote_data(parts)}）" if parts else ""),
                                   layer_for("fusion_signal"), _day(signal.as_of), f"signal:{signal.id}"))
        if holding:
            items.append(BlockItem(f"持仓关联：{ROLE_NAMES.get(holding.role, holding.role)}，{_num(holding.shares)} 股，"
                                   f"成本 {holding.cost:.2f}", layer_for("holding"), _day(holding.updated_at)))
        else:
            items.append(BlockItem("持仓关联：未持有"))
        # The user's own plans and trades on this stock, even when newer ones about other
        # stocks push them out of the global notes / decisions lists.
        notes_since = (now - timedelta(days=limits.notes_days)).isoformat(timespec="seconds")
        for note in self.domain.recent_notes_for(symbol, notes_since, until, limits.per_symbol_limit):
            items.append(_note_item(note))
        decisions_since = (now - timedelta(days=limits.decisions_days)).isoformat(timespec="seconds")
        for decision in self.domain.recent_decisions_for(symbol, decisions_since, until, limits.per_symbol_limit):
            items.append(_decision_item(decision, held))
        since = (now - timedelta(days=limits.news_days)).isoformat(timespec="seconds")
        for news in self.domain.recent_news(symbol, since, limits.news_per_symbol):
            text = f"动态：{quote_data(news.title)}"
            if news.summary:
                text += f" {quote_data(news.summary)}"
            if news.source:
                text += f"（来源 {quote_data(news.source)}）"
            items.append(BlockItem(text, layer_for("news", news.layer), _day(news.published_at), f"news:{news.id}"))
        if not profile and not signal:
            items.insert(0, BlockItem(f"数据库中没有 {symbol} 的画像和信号"))
        title = f"标的上下文：{symbol} {defuse(name)}".rstrip()
        return Section(f"symbol:{symbol}", title, tuple(items), 90)
