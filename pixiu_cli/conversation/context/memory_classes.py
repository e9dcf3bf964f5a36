"""The six memory classes, each on demand and limited, plus the every-turn
sections (time, holdings, persona, summary). Produces `Section`s; `block.assemble` renders
and trims them.

Every item carries its as-of date (日期未知 when the store has none), and an item past its
class's freshness limit is marked and listed after the fresh ones (see freshness.py).
What trimming keeps, most important last to go: the user's own rules, plans and views,
then alerts, the sections of the stocks asked about, the persona, decisions, the summary,
the portfolio overview, the holdings list, reports and the scene. Holdings and the
portfolio overview list the largest positions first (market value when a price is known,
else cost × shares) and sum up what trimming left out in one line (`其余 480 只：…`); the
holdings list opens with the account's total. A question about the account raises the
holdings and the scene above the rest (builder.asked_first), in compact lines if need be.

Stored values arrive typed from the store (store/rows.py): text as str, numbers as float or
None, and a number that is none as NaN, which values.py shows as 无效值.

Current time in Asia/Shanghai and the A-share trading-session state, so every answer
knows whether the market is open.

Sessions on a trading day (SSE/SZSE/BSE continuous trading):

    before 09:30        盘前    (09:15–09:25 opening call auction, 09:25–09:30 waiting to open)
    09:30 ≤ t < 11:30   盘中
    11:30 ≤ t < 13:00   午休
    13:00 ≤ t < 15:00   盘中    (14:57–15:00 closing call auction)
    15:00 ≤ t           收盘后

Weekends and exchange holidays are 非交易日 all day; the trading days and Beijing time
come from the market layer (pixiu_cli/market/calendar.py). A day past the calendar's
last known day is 交易日未知: the note says how far the calendar reaches and which session
the clock time would be if the exchanges are open, never that they are."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from functools import lru_cache
from typing import TYPE_CHECKING

from pixiu_cli.account.model import COST_METHOD_NAMES
from pixiu_cli.account.risk import account_risk, caps_in_force
from pixiu_cli.conversation.context.account_history import History, trades_section
from pixiu_cli.conversation.context.block import BlockItem, MemoryId, Section
from pixiu_cli.conversation.context.layers import FreshnessRule, layer_for, stale_label
from pixiu_cli.conversation.context.quoting import (
    ENGINE_STRATEGIES,
    SIGNAL_DIRECTIONS,
    UNKNOWN_DAY,
    cash_said,
    day,
    defuse,
    label,
    period_label,
    quote_data,
    sessions_said,
    show_money,
    show_number,
    show_pct,
    show_price,
    show_signed,
    skipped_said,
)
from pixiu_cli.conversation.context.watch import watch_note
from pixiu_cli.conversation.selection.intent import Intent
from pixiu_cli.home.model import Alert, Decision, Holding, MemoryEvent, NewsItem, Profile, Report, Signal
from pixiu_cli.kernel.vocabulary import (
    NOTE_KIND_NAMES,
    NOTE_LAYER_NAMES,
    NOTE_NAME,
    ROLE_NAMES,
    SIDE_NAMES,
    MemoryLimits,
)
from pixiu_cli.market.trading_days import (
    CalendarEnd,
    as_shanghai,
    calendar_end,
    holiday_name,
    is_trading_day,
    knows,
    next_trading_day,
    previous_trading_day,
)

PRE_OPEN = "盘前"
TRADING = "盘中"
LUNCH_BREAK = "午休"
CLOSED = "收盘后"
NON_TRADING_DAY = "非交易日"
UNKNOWN_SESSION_DAY = "交易日未知"

_WEEKDAYS = ("星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日")

_AUCTION_START = time(9, 15)
_AUCTION_END = time(9, 25)
_OPEN = time(9, 30)
_MORNING_CLOSE = time(11, 30)
_AFTERNOON_OPEN = time(13, 0)
_CLOSING_AUCTION = time(14, 57)
_CLOSE = time(15, 0)


@dataclass(frozen=True)
class MarketState:
    now_shanghai: datetime  # aware, Asia/Shanghai
    label: str  # 盘前 / 盘中 / 午休 / 收盘后 / 非交易日 / 交易日未知
    is_trading_day: bool  # False also when the calendar cannot say
    note: str = ""  # e.g. "开盘集合竞价 9:15–9:25", "国庆节休市，下一交易日 10月8日（星期四）"

    def describe(self) -> str:
        """One line for the dynamic block, e.g.
        "2026-01-05 10:15 星期一（北京时间）· 盘中 · 上午连续竞价"."""
        stamp = self.now_shanghai.strftime("%Y-%m-%d %H:%M")
        weekday = _WEEKDAYS[self.now_shanghai.weekday()]
        text = f"{stamp} {weekday}（北京时间）· {self.label}"
        return f"{text} · {self.note}" if self.note else text


def _next_open_note(d: date) -> str:
    try:
        nxt = next_trading_day(d)
    except CalendarEnd as end:
        return f"{end}，下一交易日未知"
    return f"下一交易日 {nxt.month}月{nxt.day}日（{_WEEKDAYS[nxt.weekday()]}）"


def market_state(now: datetime) -> MarketState:
    """Session state of the A-share market at `now` (see the module docstring)."""
    local = as_shanghai(now)
    today = local.date()
    if not knows(today):
        end = calendar_end().isoformat()
        if today.weekday() >= 5:  # weekends are closed whatever the calendar
            return MarketState(local, NON_TRADING_DAY, False, f"周末休市，交易日历只到 {end}，下一交易日未知")
        guess = _session(local).label
        return MarketState(
            local, UNKNOWN_SESSION_DAY, False, f"交易日历只到 {end}，无法确认今天是否开市；若开市则为{guess}"
        )
    if not is_trading_day(today):
        reason = f"{holiday_name(today)}休市" if holiday_name(today) else "周末休市"
        return MarketState(local, NON_TRADING_DAY, False, f"{reason}，{_next_open_note(today)}")
    return _session(local)


def _session(local: datetime) -> MarketState:
    """The session of a trading day at the wall-clock time of `local`."""
    today = local.date()
    t = local.time().replace(tzinfo=None)
    if t < _OPEN:
        if _AUCTION_START <= t < _AUCTION_END:
            note = "开盘集合竞价 9:15–9:25"
        elif _AUCTION_END <= t:
            note = "集合竞价已结束，9:30 开盘"
        else:
            note = "9:15 开始集合竞价，9:30 开盘"
        return MarketState(local, PRE_OPEN, True, note)
    if t < _MORNING_CLOSE:
        return MarketState(local, TRADING, True, "上午连续竞价")
    if t < _AFTERNOON_OPEN:
        return MarketState(local, LUNCH_BREAK, True, "13:00 恢复交易")
    if t < _CLOSE:
        note = "收盘集合竞价 14:57–15:00" if t >= _CLOSING_AUCTION else "下午连续竞价"
        return MarketState(local, TRADING, True, note)
    return MarketState(local, CLOSED, True, f"今日已收盘，{_next_open_note(today)}")


if TYPE_CHECKING:
    from pixiu_cli.home.handle import InvestorStore

# Said under the compact holdings list, so the model knows the short lines are complete
# positions, not a summary of them.
COMPACT_HOLDINGS_NOTE = (
    "精简格式：持仓较多，每只一行（股数 · 仓位 · 浮动盈亏），全部持仓都在；收盘价、成本等明细可调用工具查询"
)
# The section the conversation's summary is sent in: the cache report reads it back from a
# stored request to tell a compaction from a withdrawn turn.
SUMMARY_TITLE = "对话摘要"
# The memory classes a question asks about that get a section of their own.
TRADES, NEWS, PLANS, RISK = "trades", "news", "plans", "risk"
NOTE_KIND_ORDER = {"rule": 0, "plan": 1}  # the user's own rules and plans go last when trimming

# Trimming priority: higher survives longer (see the module docstring).
PRIORITY = {
    "rules": 98,
    "notes": 97,
    "alerts": 96,
    "symbol": 90,
    "persona": 86,
    "decisions": 84,
    "summary": 75,
    "portfolio_profiles": 72,
    # where the risk sits (a portfolio question): asked about (仓位风险大吗, 太集中了吗), it
    # outranks the profiles and the scene; otherwise (哪只适合核心仓) it is the first thing the
    # profiles keep, a cap exceeded or not
    "risk_asked": 83,
    "risk": 71,
    "holdings": 70,
    # A question about the account (builder.asked_first): its holdings lines and total go
    # above every section but the user's own rules, plans and alerts, which any advice must
    # be checked against and which are a few lines; the scene comes right after.
    "asked_holdings": 95,
    "asked_scene": 80,
    # A windowed class the question asks about (那份报告, 上周的交易, 前阵子的提醒): kept before the
    # stocks' sections and the profiles, as what the answer is about (builder.asked_classes_first).
    "asked_class": 93,
    "reports": 40,
    "scene": 30,
}


@dataclass(frozen=True)
class Asked:
    """What the question asks of the memory (selection/targets.py, selection/windows.py): the
    classes, the windows its time words moved (section key → move), the ledger's trade
    history (`History`; None: no ledger to read) and the words of the company's figures
    it asks about (selection/topics.py)."""

    targets: frozenset[str] = frozenset()
    windows: Mapping = field(default_factory=dict)
    history: History | None = None
    topic_words: tuple[str, ...] = ()  # what the question asks of a company (负债率, 分红)


def _shown_day(stamp) -> str:
    parsed = day(stamp)
    return parsed.isoformat() if parsed else UNKNOWN_DAY


def _role(value: str | None) -> str:
    return ROLE_NAMES.get(value or "", label(value) if value else "未知定位")


def _finite(value: float | None) -> float | None:
    """A figure to compute with: None for a missing or invalid (NaN, ±Infinity) number."""
    return value if value is not None and math.isfinite(value) else None


def _names(holding: Holding) -> str:
    return _names_text(holding.symbol, holding.name, holding.short_names)


@lru_cache(maxsize=4096)
def _names_text(symbol: str, name: str, short_names: tuple[str, ...]) -> str:
    """Remembered: the same holdings are listed on every turn, hundreds of them."""
    alias = f"（简称：{'、'.join(label(n) for n in short_names)}）" if short_names else ""
    return f"{defuse(symbol)} {label(name)}{alias}"


@lru_cache(maxsize=4096)
def _holding_text(h: Holding, profile: Profile | None = None) -> str:
    line = f"{_names(h)} · {_role(h.role)} · {show_number(h.shares)} 股 · 成本 {show_price(h.cost)}"
    return line + _profile_brief(profile) if profile is not None else line


@lru_cache(maxsize=4096)
def _profile_brief(p: Profile) -> str:
    """The headline figures on the holding's own line, so a portfolio question the intent
    model missed still sees them (graceful degradation; the overview has the rest)."""
    return (
        f" · {label(p.strategy, ENGINE_STRATEGIES)} 年化{_short_pct(p.annual_return)} 回撤{_short_pct(p.max_drawdown)}"
    )


def _short_pct(value: float | None) -> str:
    value = _finite(value)
    return "—" if value is None else f"{value * 100:.0f}%"


def position_weight(h: Holding, prices: Mapping[str, float]) -> float:
    """Market value when a price is known, else cost × shares; 0 when unknowable."""
    return _weight(h, prices.get(h.symbol) if prices else None)


@lru_cache(maxsize=4096)
def _weight(h: Holding, price: float | None) -> float:
    shares = _finite(h.shares)
    unit = _finite(price) or _finite(h.cost)
    if shares is None or unit is None or shares <= 0 or unit <= 0:
        return 0.0
    value = shares * unit
    return value if value < float("inf") else 0.0


def _value_text(v) -> str:
    """A holding's valuation (domain/valuation.py ValuedPosition): the close it uses and its
    date, the P&L split the way the account reports it, the weight."""
    if v is None:
        return " · 无行情数据"
    weight = f" · 仓位 {float(v.weight) * 100:.1f}%"
    p = v.position
    realised = f" · 已实现 {float(p.realised_pnl):+,.2f}" if p.realised_pnl else ""
    if not v.priced:
        return f" · 无行情数据，按成本计市值 {show_number(float(round(v.value, 2)))}{realised}{weight}"
    close = v.close
    fresh = "" if not close.stale_days else f"，{sessions_said('已过期', close.stale_days, close.stale_at_least)}"
    shares = f" · 含送转 {show_number(float(p.bonus_shares))} 股" if p.bonus_shares else ""
    cash = f" · 已派现 {show_number(float(round(p.dividends, 2)))}" if p.dividends else ""
    pct = f"（{float(v.unrealised_pct) * 100:+.1f}%）" if v.unrealised_pct is not None else ""
    return (
        f" · 收盘 {float(close.price):.2f}（{close.day} 不复权{fresh}）{shares}{cash}"
        f" · 市值 {show_number(float(round(v.value, 2)))} · 浮动盈亏 {float(v.unrealised_pnl):+,.2f}{pct}{realised}{weight}"
    )


def _money(amount: Decimal) -> str:
    return show_money(float(round(amount, 2)))


# How the account line names each of its figures (the eval's `account` check reads it too).
ACCOUNT_LABELS = {"total_assets": "总资产", "stock_value": "股票市值", "cash": "现金", "realised": "已实现合计"}


def account_figures(view) -> dict[str, str]:
    """The account line's figures, as the block writes them: cash and total assets only when
    the cash is known."""
    account = view.account
    figures = {"stock_value": _money(account.stock_value), "realised": f"{float(account.realised_pnl):+,.2f}"}
    if account.cash is not None:
        figures["cash"] = _money(account.cash.amount)
        figures["total_assets"] = _money(account.total_assets)
    return figures


def _cash_text(cash, figure: str) -> str:
    stated = cash.stated
    return cash_said(figure, stated.as_of, _money(Decimal(repr(float(stated.amount)))), cash.rolled, cash.missing)


def _assets_text(view) -> str:
    """What the weights are shares of: total assets with the cash, else the stocks alone."""
    account, figures = view.account, account_figures(view)
    stocks = figures["stock_value"]
    at_cost = f"，其中 {account.unpriced} 只无行情按成本计" if account.unpriced else ""
    method = COST_METHOD_NAMES.get(account.cost_method, account.cost_method)
    if account.cash is None:
        return (
            f"股票市值 {stocks}（全部持仓{at_cost}；现金未知，仓位按股票市值计）；成本为{method}{_accounts_text(view)}"
        )
    return (
        f"总资产 {figures['total_assets']} = 股票市值 {stocks}（全部持仓{at_cost}）"
        f" + {_cash_text(account.cash, figures['cash'])}；仓位按总资产计；成本为{method}；"
        f"{_unrealised_total(account)}，已实现合计 {figures['realised']}{_accounts_text(view)}"
    )


def _accounts_text(view) -> str:
    """With several broker accounts: the figures are their sum, and each one's cash (a home
    of one account says nothing more)."""
    accounts = getattr(view, "accounts", ())
    if len(accounts) < 2:
        return ""
    each = "，".join(f"{label(name)} {_money(cash.amount) if cash else '未知'}" for name, cash in accounts)
    return f"；以上为 {len(accounts)} 个券商账户合计，同一股票合并为一行（各账户现金：{each}）"


def _unrealised_total(account) -> str:
    """The unrealised total over the priced holdings, saying which it leaves out: a holding
    valued at cost has no unrealised figure to add."""
    total = account.unrealised_pnl
    figure = "—" if total is None else f"{float(total):+,.2f}"
    left_out = f"（不含 {account.unpriced} 只无行情的持仓）" if account.unpriced else ""
    return f"浮动盈亏合计 {figure}{left_out}"


def _skipped_note(valuation) -> str | None:
    """The stored rows every figure of the section leaves out (unreadable), under its title:
    trimming keeps it while the section stands, so the model says so."""
    if valuation is None or not valuation.skipped:
        return None
    return "注意：" + skipped_said([asdict(row) for row in valuation.skipped])


def _concentration_items(valuation) -> tuple[BlockItem, ...]:
    if valuation is None or not (valuation.account.holdings or valuation.account.cash):
        return ()
    c = valuation.account.concentration
    text = _assets_text(valuation)
    if c is not None:
        text += (
            f"；集中度：最大仓位 {c.largest_symbol} {float(c.largest_weight) * 100:.1f}%，"
            f"前三 {float(c.top3_weight) * 100:.1f}%，HHI {float(c.hhi):.2f}（按股票市值）"
        )
    return (BlockItem(text, "事实"),)


BLOCK_INDUSTRIES = 5  # the block's industry line: the largest five, the rest in one figure


def _pct1(value: Decimal) -> str:
    return f"{float(value) * 100:.1f}%"


def _risk_section(risk, asked: bool = False) -> Section | None:
    """Where the risk sits (account/risk.py), for a question about the whole portfolio: the
    user's caps checked, then the weights by industry, one line each. Asked about (`asked`: the
    question's risk cue), it outranks the profiles when the budget is short; otherwise it yields
    to them."""
    if risk is None or not risk.industries:
        return None
    shown, rest = risk.industries[:BLOCK_INDUSTRIES], risk.industries[BLOCK_INDUSTRIES:]
    parts = [f"{w.industry} {_pct1(w.weight)}" for w in shown]
    if rest:
        parts.append(f"其余 {len(rest)} 个行业 {_pct1(sum((w.weight for w in rest), Decimal(0)))}")
    items = []
    if risk.caps:
        checks = "；".join(_cap_check_text(check) for check in risk.caps)
        items.append(BlockItem(f"用户仓位上限核对（据用户纪律与画像中写明的上限计算）：{checks}", "事实"))
    items.append(BlockItem(f"行业分布（行业取自证券列表）：{'、'.join(parts)}", "事实"))
    basis = "仓位按总资产计" if risk.of_assets else "现金未知，仓位按股票市值计"
    return Section("risk", "风险分布", tuple(items), PRIORITY["risk_asked" if asked else "risk"], note=basis)


def _cap_check_text(check) -> str:
    rule, actual = check.rule, check.actual
    limit = f"{float(check.limit) * 100:g}%"
    subject = {
        "cap": f"单只≤{limit}" if rule.symbol is None else f"{defuse(rule.symbol)} ≤{limit}",
        "role_cap": f"{_role(rule.role)}合计≤{limit}",
        "industry_cap": f"{'、'.join(rule.industries)}合计≤{limit}",
        "total_cap": f"股票合计≤{limit}",
        "cash_min": f"现金≥{limit}",
    }[rule.kind]
    if actual is None:
        return f"{subject}：现金未知，无法核对"
    figure = f"最大 {defuse(check.symbol)} {_pct1(actual)}" if rule.kind == "cap" and check.symbol else _pct1(actual)
    if check.within:
        return f"{subject}：{figure}，符合"
    side = "低于下限" if rule.kind == "cash_min" else "超出"
    more = f"（共 {len(check.over)} 只超出）" if len(check.over) > 1 else ""
    return f"{subject}：{figure}，{side} {float(check.beyond) * 100:.1f} 个百分点{more}"


@lru_cache(maxsize=4096)
def _profile_text(profile: Profile, name: str) -> str:
    symbol = defuse(profile.symbol)
    named = f"{symbol} {label(name)}" if name else symbol
    strategy = label(profile.strategy, ENGINE_STRATEGIES) if profile.strategy else "未知"
    parts = [f"{named} 回测画像：策略 {strategy}"]
    if profile.period:
        parts.append(f"区间 {period_label(profile.period)}")
    sharpe = show_number(profile.sharpe)
    parts.append(
        f"年化 {show_pct(profile.annual_return)}，最大回撤 {show_pct(profile.max_drawdown)}，"
        f"胜率 {show_pct(profile.win_rate)}，夏普 {sharpe}"
    )
    if profile.best_role:
        parts.append(f"适合定位 {_role(profile.best_role)}")
    result = "；".join(parts)
    if profile.conclusion:
        result += f"；结论 {quote_data(profile.conclusion)}"
    return result


def _offer_label(note: MemoryEvent) -> str:
    """Until the user accepts a newer plan's offer, both plans hold; the model is told which."""
    if not note.replace_offered_by:
        return ""
    return f"（较早的计划：新计划 note:{note.replace_offered_by} 待用户确认是否替换它，确认前两条都有效）"


def _note_item(note: MemoryEvent) -> BlockItem:
    kind = NOTE_KIND_NAMES.get(note.note_kind or "", label(note.note_kind) if note.note_kind else NOTE_NAME)
    about = f"（{defuse(note.symbol)}）" if note.symbol else ""
    return BlockItem(
        f"{kind}{about}：{quote_data(note.text)}{_offer_label(note)}",
        NOTE_LAYER_NAMES.get(note.note_kind or "", NOTE_LAYER_NAMES["view"]),
        _shown_day(note.created_at),
        MemoryId("note", note.id),
    )


def _decision_item(d: Decision, held: dict[str, Holding], returns: tuple = (None, None)) -> BlockItem:
    symbol = d.symbol
    name = f" {label(held[symbol].name)}" if symbol in held else ""
    reason = f"，理由 {quote_data(d.reason)}" if d.reason else ""
    side = SIDE_NAMES.get(d.side, label(d.side) if d.side else "操作")
    return BlockItem(
        f"{side} {defuse(symbol)}{name} {show_number(d.quantity)} 股 @ {show_price(d.price)}{reason}"
        f"{_outcome_text(side, returns)}",
        layer_for("decision"),
        _shown_day(d.decided_at),
        MemoryId("decision", d.id),
    )


def _outcome_text(side: str, returns: tuple) -> str:
    """How the stock moved after the decision, from the stored bars ("买入后 20 日 +4.2%")."""
    parts = [f"{n} 日 {value * 100:+.1f}%" for n, value in zip((5, 20), returns) if _finite(value) is not None]
    return f"；{side}后 {'、'.join(parts)}（按日线）" if parts else ""


def _fresh_first(items: list[BlockItem]) -> tuple[BlockItem, ...]:
    """Stale items after the fresh ones, each group in its given order (stable sort)."""
    return tuple(sorted(items, key=lambda item: item.stale is not None))


def _ranked_rest(weights: list[float]) -> Callable[[int], str]:
    """rest(k): one line about the positions after the first k of a list ranked by weight,
    from suffix sums (trimming asks for it at every step)."""
    total = sum(weights)
    suffix = [0.0] * (len(weights) + 1)
    for i in range(len(weights) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + weights[i]

    def rest(kept: int) -> str:
        share = f"合计约占组合 {suffix[kept] / total * 100:.1f}%" if total > 0 else "权重未知"
        return f"其余 {len(weights) - kept} 只：{share}（按市值或成本×股数排序在后）；需要时调用工具查询"

    return rest


class MemoryAssembler:
    def __init__(self, domain: InvestorStore, limits: MemoryLimits, prices: Mapping[str, float] | None = None):
        """`prices`: symbol → latest price, when known; positions are weighted by market
        value where a price is known and by cost × shares elsewhere."""
        self.domain = domain
        self.limits = limits
        self.prices = prices or {}

    def sections(
        self,
        *,
        now: datetime,
        symbols: list[str],
        intent: Intent,
        holdings: list[Holding],
        summary: str | None,
        scene: str | None,
        valuation=None,
        overview: bool | None = None,
        names: Mapping[str, str] | None = None,
        compact_overview: bool = False,
        watched: Mapping[str, str] | None = None,
        asked: Asked | None = None,
    ) -> list[Section]:
        """valuation: the account's one derivation (domain/valuation.py AccountView) or None;
        overview: inject every holding's profile (default: for a portfolio review); names: the
        security master's names of mentioned stocks that are not held; compact_overview: the
        overview as one short line a holding (an uncertain question about the user's money);
        watched: the watch list (symbol → when added), said in a watched stock's section;
        asked: the memory classes the question asks about and the windows its time words moved."""
        asked = asked or Asked()
        today = now.date()
        values = {v.symbol: v for v in valuation.account.holdings} if valuation else None
        prices = self.prices or ({s: float(v.close.price) for s, v in values.items() if v.priced} if values else {})
        held = {h.symbol: h for h in holdings}
        sections = _opening_sections(now, scene, summary)

        with_overview = (intent == Intent.PORTFOLIO_REVIEW if overview is None else overview) and bool(holdings)
        # Without the overview the holding lines carry each profile's headline figures.
        briefs = {} if with_overview or not holdings else self.domain.profiles_for([h.symbol for h in holdings])
        weighed = sorted(
            (
                (float(values[h.symbol].value) if values and h.symbol in values else position_weight(h, prices), h)
                for h in holdings
            ),
            key=lambda pair: -pair[0],
        )
        ranked = [h for _, h in weighed]
        weights = {h.symbol: w for w, h in weighed}
        sections.append(self._holdings_section(ranked, [w for w, _ in weighed], today, values, valuation, briefs))
        risk = _risk_section(self._risk(valuation, now), RISK in asked.targets) if with_overview else None
        sections.extend([risk] if risk is not None else [])
        sections.extend(self._persona_section(today))

        for symbol in symbols:
            section = self._symbol_section(symbol, held.get(symbol), now, held, (names or {}).get(symbol), asked)
            sections.append(_with_watch_note(section, (watched or {}).get(symbol)) if symbol not in held else section)
        shown = {i.memory_id for s in sections for i in s.items if i.memory_id}

        if with_overview:
            sections.append(self._overview_section(ranked, weights, today, compact_overview))

        sections.extend(self._recent_sections(now, held, shown, asked, symbols, ranked))
        return sections

    def _recent_sections(
        self, now: datetime, held: dict[str, Holding], shown: set, asked: Asked, symbols: list[str], ranked: list
    ) -> list[Section]:
        """The holdings' news (asked about them all), then the windowed classes: reports,
        trades and decisions, alerts and the user's notes."""
        about_all = NEWS in asked.targets and not symbols
        news = self._holdings_news_section(now, ranked, asked.windows.get("news")) if about_all else []
        trades = self._trades_section(now, symbols, asked) if TRADES in asked.targets else None
        # a question about trades keeps the told trades in their own section, where the trade
        # review's scene points, the named stocks' of any age (as the trades section's fills)
        named = tuple(symbols) if TRADES in asked.targets else ()
        if trades is not None:
            shown = shown | {i.memory_id for i in trades.items if i.memory_id}
        return [
            *news,
            self._reports_section(now, asked.windows.get("reports")),
            *([trades] if trades is not None else []),
            self._decisions_section(now, held, shown, asked.windows.get("decisions"), named),
            self._alerts_section(now, asked.windows.get("alerts")),
            self._rules_section(now, shown),
            self._notes_section(
                now, shown, asked.windows.get("notes"), tuple(symbols) if PLANS in asked.targets else ()
            ),
        ]

    def _reports_section(self, now: datetime, move=None) -> Section:
        limits, today = self.limits, now.date()
        since, until = window_bounds(now, limits.reports_days, move)
        reports = self.domain.recent_reports(since, until, limits.count(limits.reports_limit, move))
        rule = limits.rule("reports")
        return Section(
            "reports",
            "近期报告结论",
            _fresh_first([_report_item(r, today, rule) for r in reports]),
            PRIORITY["reports"],
            note=_window_note(move, limits.reports_days, limits.count(limits.reports_limit, move), now),
        )

    def _trades_section(self, now: datetime, symbols: list[str], asked: Asked) -> Section | None:
        """The ledger's fills: over the moved window, else all of the named stocks', else the
        last `trades_days`; with what that span realised."""
        if asked.history is None:
            return None
        limits, move = self.limits, asked.windows.get("trades")
        if move is not None:
            first, last, widened = _applied(now, limits.trades_days, move)
            start, end = first.date(), None if widened else last.date()
            what = _window_note(move, limits.trades_days, limits.count(limits.trades_limit, move), now)
        elif symbols:
            start, end, what = None, None, f"{'、'.join(symbols)} 的全部成交，最多 {limits.trades_limit} 笔"
        else:
            start, end = (now - timedelta(days=limits.trades_days)).date(), None
            what = f"近 {limits.trades_days:g} 天，最多 {limits.trades_limit} 笔"
        history = asked.history(now, start, end, list(symbols) or None, limits.count(limits.trades_limit, move))
        ids = {f.decision_id for f in history.fills if f.decision_id}
        reasons = {i: d.reason for i in ids if (d := self.domain.decision(i)) is not None and d.reason}
        return trades_section(history, what, reasons)

    def _decisions_section(
        self, now: datetime, held: dict[str, Holding], shown: set, move=None, named: tuple[str, ...] = ()
    ) -> Section:
        limits = self.limits
        since, until = window_bounds(now, limits.decisions_days, move)
        limit = limits.count(limits.decisions_limit, move)
        note = _window_note(move, limits.decisions_days, limit, now)
        if named:
            since = since if move is not None else ""
            found = [d for s in named for d in self.domain.recent_decisions_for(s, since, until, limit)]
            decisions = sorted(found, key=lambda d: d.decided_at, reverse=True)[:limit]
            note = note if move is not None else f"{'、'.join(named)} 的全部操作决策，最多 {limit} 条"
        else:
            decisions = self.domain.recent_decisions(since, until, limit)
        return Section(
            "decisions",
            "近期操作决策",
            tuple(
                _decision_item(d, held, self.domain.decision_returns(d.id))
                for d in decisions
                if MemoryId("decision", d.id) not in shown
            ),
            PRIORITY["decisions"],
            note=note,
        )

    def _holdings_news_section(self, now: datetime, ranked: list[Holding], move=None) -> list[Section]:
        """Every holding's news in the window, largest positions first (a question about the
        holdings' news); empty when none has any."""
        limits, today = self.limits, now.date()
        since, until = window_bounds(now, limits.news_days, move)
        rule = limits.rule("news")
        items = []
        for h in ranked:
            for n in self.domain.recent_news(h.symbol, since, limits.news_per_symbol, until):
                item = _news_item(n, today, rule)
                items.append(replace(item, text=f"{defuse(h.symbol)} {label(h.name)} {item.text}"))
        if not items:
            return []
        note = _window_note(move, limits.news_days, limits.holdings_news_limit, now)
        return [
            Section(NEWS, "持仓动态（公告与新闻）", _fresh_first(items[: limits.holdings_news_limit]), 80, note=note)
        ]

    def _alerts_section(self, now: datetime, move=None) -> Section:
        limits, today = self.limits, now.date()
        since, until = window_bounds(now, limits.alerts_days, move)
        closed_day = move is None and _last_session_start(now)
        if closed_day:  # a weekend or a holiday does not age the last session's alerts
            since = min(since, closed_day)
        alerts = self.domain.recent_alerts(since, until, limits.count(limits.alerts_limit, move))
        rule = limits.rule("alerts")
        window = _window_note(move, limits.alerts_days, limits.count(limits.alerts_limit, move), now) if move else None
        return Section(
            "alerts",
            "待办预警",
            _fresh_first([_alert_item(a, today, rule) for a in alerts]),
            PRIORITY["alerts"],
            note=window
            or f"近 {limits.alerts_days:g} 天触发{'（休市日：含上个交易日）' if closed_day else ''}，最多 {limits.alerts_limit} 条",
        )

    def _rules_section(self, now: datetime, shown: set) -> Section:
        limits = self.limits
        rules = self.domain.rules(_until(now), limits.rules_limit)
        return Section(
            "rules",
            "用户纪律",
            tuple(_note_item(n) for n in rules if MemoryId("note", n.id) not in shown),
            PRIORITY["rules"],
            note=f"撤回前一直有效，最多 {limits.rules_limit} 条；建议须先对照",
        )

    def _notes_section(self, now: datetime, shown: set, move=None, named: tuple[str, ...] = ()) -> Section:
        """The user's plans and views in the window; asked about named stocks' (给X定的计划), theirs
        of any age first, as the stock's section would hold them."""
        limits = self.limits
        since, until = window_bounds(now, limits.notes_days, move)
        pinned = self.domain.pinned_notes(_until(now), limits.notes_limit)
        count = limits.count(limits.notes_limit, move)
        recent = self.domain.recent_notes(since, until, count)
        if named:
            own = [n for s in named for n in self.domain.recent_notes_for(s, "", _until(now), count)]
            own_ids = {n.id for n in own}
            recent = [*own, *(n for n in recent if n.id not in own_ids)]
        pinned_ids = {n.id for n in pinned}
        notes = (pinned + [n for n in recent if n.id not in pinned_ids])[: max(count, len(pinned))]
        notes = sorted(notes, key=lambda n: NOTE_KIND_ORDER.get(n.note_kind or "", 2))
        return Section(
            "notes",
            "用户计划 / 观点",
            tuple(_note_item(n) for n in notes if MemoryId("note", n.id) not in shown),
            PRIORITY["notes"],
            note="用户自己说过的话，" + _window_note(move, limits.notes_days, count, now),
        )

    def _holdings_section(
        self,
        ranked: list[Holding],
        weights: list[float],
        today: date,
        values=None,
        valuation=None,
        briefs: Mapping[str, Profile] | None = None,
    ) -> Section:
        if not ranked:
            none = (BlockItem("数据库中没有持仓记录"),)
            return Section("holdings", "持仓（0 只）", none, PRIORITY["holdings"], _skipped_note(valuation))
        rule = self.limits.rule("holdings")
        briefs = briefs or {}
        items = [
            _holding_item(
                h,
                today,
                rule,
                _value_text(values.get(h.symbol)) if values else "",
                briefs.get(h.symbol),
                _close_day(values, h),
            )
            for h in ranked
        ]
        order = _stale_order(items)
        account = _concentration_items(valuation)
        rest = _after_account(_ranked_rest([weights[i] for i in order]), len(account))
        total = sum(weights)
        compact = [_compact_holding_item(ranked[i], values, weights[i] / total if total > 0 else None) for i in order]
        full = Section(
            "holdings",
            f"持仓（{len(ranked)} 只）",
            account + tuple(items[i] for i in order),
            PRIORITY["holdings"],
            _skipped_note(valuation),
            rest=rest,
        )
        note = "；".join(n for n in (COMPACT_HOLDINGS_NOTE, _skipped_note(valuation)) if n)
        return replace(
            full,
            compact=replace(full, title=f"持仓（{len(ranked)} 只，精简）", items=account + tuple(compact), note=note),
        )

    def _risk(self, valuation, now: datetime):
        """Where the account's risk sits and the user's caps checked (account/risk.py), for a
        question about the whole portfolio."""
        if valuation is None or not valuation.account.holdings:
            return None
        return account_risk(valuation, caps_in_force(self.domain, now))

    def _persona_section(self, today: date) -> list[Section]:
        persona = self.domain.persona()
        if not persona:
            return []
        as_of = self.domain.persona_updated_at()
        content = "；".join(f"{label(k)}：{quote_data(v)}" for k, v in persona.items())
        item = BlockItem(
            content, "事实", _shown_day(as_of), None, stale_label(day(as_of), today, self.limits.rule("persona"))
        )
        return [Section("persona", "投资者画像", (item,), PRIORITY["persona"])]

    def _overview_section(
        self, ranked: list[Holding], weights: dict[str, float], today: date, compact: bool = False
    ) -> Section:
        """Every holding's latest profile, largest positions first (a portfolio question);
        compact: its headline figures only."""
        profiles = self.domain.profiles_for([h.symbol for h in ranked])
        rule = self.limits.rule("profiles")
        total = sum(weights.values())
        items = []
        for h in ranked:
            symbol = h.symbol
            share = f"；约占组合 {weights[symbol] / total * 100:.1f}%" if total > 0 else ""
            item = _compact_overview_item if compact else _overview_item
            items.append(item(h, profiles.get(symbol), share, today, rule))
        ordered, kept_weights = _stale_last(items, [weights[h.symbol] for h in ranked])
        return Section(
            "portfolio_profiles",
            "持仓画像概览（精简：意图不确定，召回优先）" if compact else "持仓画像概览（组合级问题，全部持仓）",
            ordered,
            PRIORITY["portfolio_profiles"],
            rest=_ranked_rest(kept_weights),
        )

    def _symbol_section(
        self,
        symbol: str,
        holding: Holding | None,
        now: datetime,
        held: dict[str, Holding],
        known_name: str | None = None,
        asked: Asked | None = None,
    ) -> Section:
        asked = asked or Asked()
        today = now.date()
        name = holding.name if holding else known_name or ""
        items: list[BlockItem] = []
        profile = self.domain.latest_profile(symbol)
        if profile:
            items.append(_profile_item(profile, name, today, self.limits.rule("profiles")))
        signal = self.domain.latest_signal(symbol)
        if signal:
            items.append(self._signal_item(signal, today))
        items.append(self._holding_link_item(holding, today))
        items.extend(self._own_items(symbol, now, held, asked))
        items.extend(self._news_items(symbol, now, asked.windows.get("news"), asked.topic_words))
        items = list(_fresh_first(items))
        if not profile and not signal:
            items.insert(0, BlockItem(f"数据库中没有 {symbol} 的画像和信号"))
        title = f"标的上下文：{symbol} {label(name) if name else ''}".rstrip()
        return Section(f"symbol:{symbol}", title, tuple(items), PRIORITY["symbol"])

    def _holding_link_item(self, holding: Holding | None, today: date) -> BlockItem:
        """Whether the stock is held, and how, in one line."""
        if not holding:
            return BlockItem("持仓关联：未持有", layer_for("holding"), today.isoformat())
        return BlockItem(
            f"持仓关联：{_role(holding.role)}，{show_number(holding.shares)} 股，成本 {show_price(holding.cost)}",
            layer_for("holding"),
            _shown_day(holding.updated_at),
            None,
            stale_label(day(holding.updated_at), today, self.limits.rule("holdings")),
        )

    def _own_items(self, symbol: str, now: datetime, held: dict[str, Holding], asked: Asked) -> list[BlockItem]:
        """The user's own plans, views and rules on this stock in force, whatever their age
        (the question names the stock), and its trades in the window, even when newer ones
        about other stocks push them out of the global notes / decisions lists. A question
        about its trades (卖X那次印花税多少) or its plans and views (两个月前给X定的计划) finds them
        in the decisions or the notes section instead, where the question points."""
        limits, until, move = self.limits, _until(now), asked.windows.get("decisions")
        items = []
        if PLANS not in asked.targets:  # else its plans and views are in the notes section
            items = [_note_item(n) for n in self.domain.recent_notes_for(symbol, "", until, limits.per_symbol_limit)]
        if TRADES in asked.targets:
            return items
        since, until = window_bounds(now, limits.decisions_days, move)
        decisions = self.domain.recent_decisions_for(symbol, since, until, limits.count(limits.per_symbol_limit, move))
        items.extend(_decision_item(d, held, self.domain.decision_returns(d.id)) for d in decisions)
        return items

    def _news_items(self, symbol: str, now: datetime, move=None, words: tuple[str, ...] = ()) -> list[BlockItem]:
        limits, today = self.limits, now.date()
        rule = limits.rule("news")
        since, until = window_bounds(now, limits.news_days, move)
        news = self.domain.recent_news(
            symbol, since, limits.count(limits.news_per_symbol, move), until if move else None
        )
        if words and move is None:  # an older item on what is asked (负债率升至62%), past the window
            older_since, _ = window_bounds(now, limits.topic_news_days, None)
            shown = {n.id for n in news}
            older = self.domain.recent_news(symbol, older_since, limits.period_limit, since)
            news += [n for n in older if n.id not in shown and _on_topic(n, words)][: limits.topic_news_limit]
        return [_news_item(n, today, rule) for n in news]

    def _signal_item(self, signal: Signal, today: date) -> BlockItem:
        # components is a JSON object: its values any JSON value, shown as written (null blank)
        parts = "、".join(f"{k} {'' if v is None else v}" for k, v in signal.components.items())
        direction = label(signal.direction, SIGNAL_DIRECTIONS) if signal.direction else ""
        return BlockItem(
            f"融合信号 {show_signed(signal.score)}{' ' + direction if direction else ''}"
            + (f"（{quote_data(parts)}）" if parts else ""),
            layer_for("fusion_signal"),
            _shown_day(signal.as_of),
            MemoryId("signal", signal.id),
            stale_label(day(signal.as_of), today, self.limits.rule("signals")),
        )


def _opening_sections(now: datetime, scene: str | None, summary: str | None) -> list[Section]:
    """The time, and the scene and the summary when there are."""
    sections = [Section("time", "当前时间", (BlockItem(market_state(now).describe(), "事实"),), 100, trimmable=False)]
    if scene:
        sections.append(Section("scene", "本轮场景", (BlockItem(scene),), PRIORITY["scene"]))
    if summary:
        sections.append(
            Section("summary", SUMMARY_TITLE, (BlockItem(quote_data(summary), "混合"),), PRIORITY["summary"])
        )
    return sections


def _with_watch_note(section: Section, added_at: str | None) -> Section:
    """An unheld stock on the watch list: its holding line says so."""
    if added_at is None:
        return section
    items = tuple(
        replace(i, text=f"{i.text} · {watch_note(added_at)}") if i.text == "持仓关联：未持有" else i
        for i in section.items
    )
    return replace(section, items=items)


def _close_day(values, h: Holding) -> str | None:
    v = values.get(h.symbol) if values else None
    return v.close.day if v is not None and v.priced else None


@lru_cache(maxsize=4096)
def _holding_item(
    h: Holding,
    today: date,
    rule: FreshnessRule,
    valued: str = "",
    brief: Profile | None = None,
    close: str | None = None,
) -> BlockItem:
    """Remembered: the same holdings are listed on every turn, hundreds of them. Dated twice:
    the position by its last ledger event, the figures by the close they use."""
    held = day(h.updated_at)
    dated = f"持仓截至 {held.isoformat()}" if held else f"持仓{UNKNOWN_DAY}"
    return BlockItem(
        _holding_text(h, brief) + valued,
        layer_for("holding"),
        dated + (f" · 收盘价 {close}" if close else ""),
        None,
        stale_label(held, today, rule),
    )


@lru_cache(maxsize=4096)
def _overview_item(h: Holding, p: Profile | None, share: str, today: date, rule: FreshnessRule) -> BlockItem:
    if p is None:
        return BlockItem(f"{defuse(h.symbol)} {label(h.name)}：数据库中没有回测画像{share}")
    return BlockItem(
        _profile_text(p, h.name) + f"；当前定位 {_role(h.role)}{share}",
        layer_for("backtest_profile"),
        _shown_day(p.as_of),
        MemoryId("profile", p.id),
        stale_label(day(p.as_of), today, rule),
    )


@lru_cache(maxsize=4096)
def _compact_overview_item(h: Holding, p: Profile | None, share: str, today: date, rule: FreshnessRule) -> BlockItem:
    if p is None:
        return BlockItem(f"{_names_text(h.symbol, h.name, ())}：没有回测画像{share}")
    return BlockItem(
        f"{_names_text(h.symbol, h.name, ())}{_profile_brief(p)}{share}",
        layer_for("backtest_profile"),
        _shown_day(p.as_of),
        MemoryId("profile", p.id),
        stale_label(day(p.as_of), today, rule),
    )


def _stale_order(items: list[BlockItem]) -> list[int]:
    """The indices of items (ranked by weight) with the stale ones after the fresh ones."""
    return sorted(range(len(items)), key=lambda i: items[i].stale is not None)


def _stale_last(items: list[BlockItem], weights: list[float]) -> tuple[tuple[BlockItem, ...], list[float]]:
    """Items (ranked by weight) with the stale ones moved after the fresh ones, and their
    weights in the same order, for the rest line."""
    order = _stale_order(items)
    return tuple(items[i] for i in order), [weights[i] for i in order]


def _after_account(rest: Callable[[int], str], leading: int) -> Callable[[int], str]:
    """The rest line of a holdings list that opens with `leading` account lines: they are
    not positions, so they do not count among the positions kept."""
    return lambda kept: rest(max(kept - leading, 0))


def _compact_holding_item(h: Holding, values, share: float | None) -> BlockItem:
    """A holding in one short line (shares, weight, unrealised P&L): the form that lets every
    holding of a large account into the block when the full lines cannot all fit."""
    v = values.get(h.symbol) if values else None
    if v is None:
        weight = "" if share is None or values else f" · 约占组合 {share * 100:.1f}%"
        figures = " · 无行情数据" if values else weight
    else:
        pnl = f"浮动盈亏 {float(v.unrealised_pnl):+,.0f}" if v.priced else "无行情，按成本计"
        figures = f" · 仓位 {float(v.weight) * 100:.1f}% · {pnl}"
    return BlockItem(f"{_names_text(h.symbol, h.name, ())} · {show_number(h.shares)} 股{figures}")


def _since(now: datetime, days: float) -> str:
    """The start of a memory class's window, in the store's timestamp form."""
    return (now - timedelta(days=days)).isoformat(timespec="seconds")


def _applied(now: datetime, days: float, move) -> tuple[datetime, datetime, bool]:
    """The window a time word gives a class: a period reaching into the class's own last
    `days` widens it back to the period's start (上周 on a Wednesday keeps this week's
    Monday); an older one moves it to the period (上个月). → (start, end, widened)."""
    default = now - timedelta(days=days)
    start = datetime.combine(move.start, time(0, 0), now.tzinfo)
    end = datetime.combine(move.end, time(23, 59, 59), now.tzinfo)
    if end >= default:
        return min(start, default), now, True
    return start, min(end, now), False


# Each windowed section's configured days (MemoryLimits) and its name in an explanation.
_WINDOWS = {
    "trades": ("trades_days", "成交记录"),
    "decisions": ("decisions_days", "操作决策"),
    "reports": ("reports_days", "报告结论"),
    "news": ("news_days", "公告与新闻"),
    "notes": ("notes_days", "计划 / 观点"),
    "alerts": ("alerts_days", "预警"),
}


def applied_moves(moves, limits: MemoryLimits, now: datetime) -> tuple:
    """The selection's window moves, each saying what it did to its section's window here
    (widened back to the period, or moved to it) for `--explain` and `/context`."""
    out = []
    for move in moves:
        field_name, name = _WINDOWS[move.section]
        days = getattr(limits, field_name)
        start, end, widened = _applied(now, days, move)
        said = f"{move.said()}：{name}的窗口"
        if widened and start >= now - timedelta(days=days):
            why = f"{said}不变，已在平时的近 {days:g} 天内"
        else:
            how = "放宽到" if widened else "移到"
            window = f"{start.date().isoformat()} 至 {end.date().isoformat()}"
            why = f"{said}{how} {window}（平时为近 {days:g} 天）"
        out.append(replace(move, why=why))
    return tuple(out)


def window_bounds(now: datetime, days: float, move=None) -> tuple[str, str]:
    """A class's window in the store's timestamp form: its last `days`, or as a time word
    widened or moved it (`_applied`)."""
    if move is None:
        return _since(now, days), _until(now)
    start, end, _ = _applied(now, days, move)
    return start.isoformat(timespec="seconds"), end.isoformat(timespec="seconds")


def _window_note(move, days: float, limit: int, now: datetime | None = None) -> str:
    if move is None or now is None:
        return f"近 {days:g} 天，最多 {limit} 条"
    start, end, widened = _applied(now, days, move)
    how = "放宽到" if widened else "移到"
    return f"窗口按“{move.words}”{how} {start.date().isoformat()} 至 {end.date().isoformat()}，最多 {limit} 条"


def _last_session_start(now: datetime) -> str | None:
    """On a day the market is closed, the start of the last trading day: on a Saturday
    evening, Friday's alerts are the last the user has not acted on. None on a trading day."""

    try:
        if is_trading_day(now.date()):
            return None
        last = previous_trading_day(now.date())
    except CalendarEnd:
        return None
    return datetime.combine(last, time(0), now.tzinfo).isoformat(timespec="seconds")


def _until(now: datetime) -> str:
    return now.isoformat(timespec="seconds")


def _report_item(r: Report, today: date, rule: FreshnessRule) -> BlockItem:
    return BlockItem(
        f"{quote_data(r.title)}：{quote_data(r.conclusion)}",
        layer_for("report"),
        _shown_day(r.created_at),
        MemoryId("report", r.id),
        stale_label(day(r.created_at), today, rule),
    )


def _alert_item(a: Alert, today: date, rule: FreshnessRule) -> BlockItem:
    return BlockItem(
        (f"{defuse(a.symbol)} " if a.symbol else "")
        + quote_data(a.message)
        + (f"（规则：{quote_data(a.rule)}）" if a.rule else ""),
        layer_for("alert"),
        _shown_day(a.triggered_at),
        MemoryId("alert", a.id),
        stale_label(day(a.triggered_at), today, rule),
    )


def _profile_item(profile: Profile, name: str, today: date, rule: FreshnessRule) -> BlockItem:
    return BlockItem(
        _profile_text(profile, name),
        layer_for("backtest_profile"),
        _shown_day(profile.as_of),
        MemoryId("profile", profile.id),
        stale_label(day(profile.as_of), today, rule),
    )


def _on_topic(news: NewsItem, words: tuple[str, ...]) -> bool:
    text = f"{news.title} {news.summary or ''}"
    return any(word in text for word in words)


def _news_item(news: NewsItem, today: date, rule: FreshnessRule) -> BlockItem:
    line = f"动态：{quote_data(news.title)}"
    if news.summary:
        line += f" {quote_data(news.summary)}"
    if news.source:
        line += f"（来源 {quote_data(news.source)}）"
    return BlockItem(
        line,
        layer_for("news", news.layer),
        _shown_day(news.published_at),
        MemoryId("news", news.id),
        stale_label(day(news.published_at), today, rule),
    )
