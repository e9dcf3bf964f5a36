"""The user's stated caps, stops and plan prices, gathered from their rule notes (in force
until withdrawn, whatever their age), their live plans and the persona: the rules the
brief checks against stored prices and the valuation's weights.

The facts of the daily brief, computed locally from what is stored — never by the model:
as of the newest stored bar of the holdings (and how many sessions that is behind), each
holding's move and P&L since the last brief (or, for the first one, since the previous
bar), the trades, changed signals and news since then, every alert fired since then, and
the user's own rules at risk (a position over its cap, a stop crossed, a plan's price
reached), read from their rule notes, plans and persona. They begin with the market review
(the benchmarks, the whole market's breadth and industries: market/review.py)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING

from pixiu_cli.account.ledger import dec
from pixiu_cli.account.overview import account_record, derive_positions, read_account
from pixiu_cli.account.valuation import AccountView, ValuedPosition
from pixiu_cli.brief.store import BriefStore, StoredBrief
from pixiu_cli.home.model import Alert, Decision
from pixiu_cli.kernel.clock import iso
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.market.analytics.rules import (
    CAP,
    PLAN_ABOVE,
    PLAN_BELOW,
    ROLE_CAP,
    STOP,
    StatedRule,
    stated_rules,
    unique,
)
from pixiu_cli.market.calendar import TradingCalendar, beyond_calendar, last_complete_session
from pixiu_cli.market.news.model import StoredNews
from pixiu_cli.market.review.breadth import MarketReview, market_review
from pixiu_cli.market.trading_days import as_shanghai
from pixiu_cli.memory.model import note_ref

NOTES_READ = 500


def user_rules(domain: InvestorStore, until: str) -> list[StatedRule]:
    rules: list[StatedRule] = []
    for key, value in domain.persona().items():
        rules += stated_rules(value, None, f"画像 {key}")
    # the rule notes are no windowed note: recent_notes leaves them to rules()
    notes = [*domain.rules(until, NOTES_READ), *domain.recent_notes("", until, NOTES_READ)]
    for note in notes:
        if note.note_kind in ("rule", "plan"):
            rules += stated_rules(note.text, note.symbol, f"笔记 {note_ref(note.id)}", is_plan=note.note_kind == "plan")
    return unique(rules)


if TYPE_CHECKING:
    from pixiu_cli.account.handle import Account
    from pixiu_cli.brief.handle import Brief
    from pixiu_cli.home.handle import InvestorStore
    from pixiu_cli.market.handle import MarketStore

FIRST_WINDOW_DAYS = 1  # the first brief looks back one day for trades, alerts and news
LIST_LIMIT = 50


@dataclass(frozen=True)
class HoldingMove:
    symbol: str
    name: str
    role: str
    value: float  # market value, or cost × shares when no bar is stored (the valuation's)
    weight: float  # the valuation's: value / (all positions' values + known cash)
    close: float | None = None
    as_of: str | None = None
    ref_close: float | None = None
    ref_date: str | None = None
    change: float | None = None  # yuan: value now − value at the reference close (dividends counted)
    change_pct: float | None = None
    ref_value: float | None = None  # the shares held at the reference close, at that close
    pnl: float | None = None  # market value + dividends received − recorded shares × cost
    pnl_pct: float | None = None
    stale_days: int | None = None
    stale_at_least: bool = False  # stale_days counted only up to the trading calendar's end
    shares: float | None = None  # after bonus shares since the holding was recorded
    cash: float = 0.0  # dividends received since the holding was recorded

    @property
    def priced(self) -> bool:
        return self.close is not None


@dataclass(frozen=True)
class SignalChange:
    symbol: str
    before: str | None
    after: str | None
    score: float | None
    as_of: str


@dataclass(frozen=True)
class RuleAtRisk:
    rule: StatedRule
    symbol: str | None
    actual: float  # the weight (a fraction) or the close that crossed the rule's level


@dataclass(frozen=True)
class BriefFacts:
    session: str | None  # the newest stored bar of the holdings: the brief is as of its close (None: no bars)
    stale_days: int | None  # trading sessions closed since that bar at the time of the brief (0: current)
    calendar_note: str | None  # 交易日历只到 … when the brief's day is past the calendar (stale_days stops there)
    created_at: str
    since: str  # trades, alerts and news after this instant
    previous: StoredBrief | None
    moves: tuple[HoldingMove, ...]
    cash: float | None
    trades: tuple[Decision, ...]
    alerts: tuple[Alert, ...]
    signals: tuple[SignalChange, ...]
    news: tuple[StoredNews, ...]
    risks: tuple[RuleAtRisk, ...]
    directions: dict[str, str | None]  # each holding's latest signal direction
    account: dict = field(default_factory=dict)  # the account's record (services/account.py), as holdings --json
    market: MarketReview | None = None  # the market review the facts begin with (market/review.py)
    # the account's return on the brief's day and this year (account/performance.py), or why not
    returns: tuple[tuple[str, object], ...] = ()

    @property
    def as_of(self) -> str:
        """The day the brief is about: its newest bar, else (no bars) the day it was written."""
        return self.session or self.created_at[:10]

    @property
    def symbols(self) -> list[str]:
        return [m.symbol for m in self.moves]

    @property
    def priced(self) -> list[HoldingMove]:
        return [m for m in self.moves if m.priced]

    @property
    def market_value(self) -> float:
        return sum(m.value for m in self.priced)

    @property
    def change(self) -> float | None:
        known = [m.change for m in self.priced if m.change is not None]
        return sum(known) if known else None

    @property
    def change_pct(self) -> float | None:
        base = sum(m.ref_value for m in self.priced if m.change is not None and m.ref_value is not None)
        return self.change / base if self.change is not None and base > 0 else None

    def snapshot(self) -> dict:
        """What the next brief compares with."""
        return {
            "session": self.session,
            "holdings": {m.symbol: {"close": m.close, "as_of": m.as_of} for m in self.moves if m.priced},
            "signals": dict(self.directions),
        }


def _finite(value) -> float | None:
    return value if isinstance(value, int | float) and math.isfinite(value) else None


def _reference(market: MarketStore, symbol: str, as_of: str, previous: StoredBrief | None) -> tuple[str, float] | None:
    """The close the move is measured from: the last brief's, else the bar before the last."""
    kept = (previous.facts.get("holdings") or {}).get(symbol) if previous else None
    if kept and _finite(kept.get("close")) and kept.get("as_of") and kept["as_of"] <= as_of:
        return kept["as_of"], kept["close"]
    return market.close_before(symbol, as_of)


def _move(
    account: Account, market: MarketStore, view: AccountView, h: ValuedPosition, previous, now: datetime
) -> HoldingMove:
    """A holding's figures from the account, and its P&L since the reference close: the
    position then (the same derivation at that day) against the position now, counting the
    money put in and taken out between."""
    p = h.position
    move = HoldingMove(
        h.symbol, view.name(h.symbol), view.roles.get(h.symbol, "satellite"), float(h.value), float(h.weight)
    )
    if not h.priced:  # no bars: valued at cost, no move to tell
        return move
    move = replace(
        move,
        close=float(h.close.price),
        as_of=h.close.day,
        pnl=float(round(h.unrealised_pnl, 2)),
        pnl_pct=float(h.unrealised_pct) if h.unrealised_pct is not None else None,
        stale_days=h.close.stale_days,
        stale_at_least=h.close.stale_at_least,
        shares=float(p.shares),
        cash=float(round(p.dividends, 2)),
    )
    ref = _reference(market, h.symbol, h.close.day, previous)
    if ref is None:
        return move
    ref_date, ref_close = ref
    # a row left out is left out of the account too, and the account's note says so
    then = derive_positions(account, now, [h.symbol], day=ref_date, skipped=[]).get(h.symbol)
    worth_then = then.shares * dec(ref_close) + then.proceeds - then.cost_in if then else Decimal(0)
    base = then.shares * dec(ref_close) if then else Decimal(0)
    change = h.value + p.proceeds - p.cost_in - worth_then
    pct = float(change / base) if base > 0 else None
    return replace(
        move,
        ref_close=ref_close,
        ref_date=ref_date,
        change=float(round(change, 2)),
        change_pct=pct,
        ref_value=float(round(base, 2)),
    )


def _signal_changes(
    store: BriefStore, symbols: list[str], previous: StoredBrief | None
) -> tuple[tuple[SignalChange, ...], dict[str, str | None]]:
    """The holdings whose signal direction changed since the last brief (the first brief:
    since the signal before the latest), and every holding's latest direction."""
    kept = (previous.facts.get("signals") or {}) if previous else {}
    out, directions = [], {}
    for symbol in symbols:
        recent = store.signals(symbol)
        if not recent:
            continue
        latest = recent[0]
        directions[symbol] = latest.direction
        if previous is not None and symbol in kept:
            before = kept[symbol]
        elif previous is not None and latest.as_of <= previous.created_at[:10]:
            before = latest.direction  # computed before the last brief: nothing changed since
        else:
            before = recent[1].direction if len(recent) > 1 else None
        if before is not None and before != latest.direction:  # a first signal is no change
            out.append(SignalChange(symbol, before, latest.direction, latest.score, latest.as_of))
    return tuple(out), directions


def _risks(moves: tuple[HoldingMove, ...], rules: list[StatedRule], closes: dict[str, float]) -> tuple[RuleAtRisk, ...]:
    out = []
    for rule in rules:
        if rule.kind == CAP:
            over = [m for m in moves if rule.symbol in (None, m.symbol) and m.weight > rule.level]
            out += [RuleAtRisk(rule, m.symbol, m.weight) for m in over]
        elif rule.kind == ROLE_CAP:
            combined = sum(m.weight for m in moves if m.role == rule.role)
            if combined > rule.level:
                out.append(RuleAtRisk(rule, None, combined))
        elif rule.symbol in closes:
            close = closes[rule.symbol]
            crossed = {STOP: close < rule.level, PLAN_BELOW: close <= rule.level, PLAN_ABOVE: close >= rule.level}
            if crossed.get(rule.kind):
                out.append(RuleAtRisk(rule, rule.symbol, close))
    return tuple(out)


def _as_of(market: MarketStore, moves: tuple[HoldingMove, ...], now: datetime) -> tuple[str | None, int | None]:
    """The newest bar of the holdings, and the sessions closed since it (the trading calendar's count)."""
    newest = max((m.as_of for m in moves if m.as_of), default=None)
    return newest, TradingCalendar(market).stale_days(newest, now)


def brief_facts(brief: Brief, now: datetime) -> BriefFacts:
    """The brief's facts from its account (valued by the account's cost method), the market and
    the stored briefs."""
    account = brief.account
    view = read_account(account, now)
    market, domain, briefs = brief.market.bars, brief.home.investor, brief.briefs
    previous = briefs.last()
    since = previous.created_at if previous else iso(as_shanghai(now) - timedelta(days=FIRST_WINDOW_DAYS))
    until = iso(as_shanghai(now))
    moves = tuple(_move(account, market, view, h, previous, now) for h in view.account.holdings)
    cash = view.account.cash
    rules = user_rules(domain, until)
    closes = {m.symbol: m.close for m in moves if m.priced}
    closes |= {
        s: c for s, (_, c) in market.last_closes([r.symbol for r in rules if r.symbol]).items() if s not in closes
    }
    symbols = [m.symbol for m in moves]
    changes, directions = _signal_changes(briefs, symbols, previous)
    session, stale = _as_of(market, moves, now)
    return BriefFacts(
        session=session,
        stale_days=stale,
        calendar_note=beyond_calendar(now),
        created_at=until,
        since=since,
        previous=previous,
        moves=moves,
        cash=float(round(cash.amount, 2)) if cash else None,
        account=account_record(view),
        trades=tuple(domain.recent_decisions(since, until, LIST_LIMIT)),
        alerts=tuple(domain.alerts_found_between(since, until)),
        signals=changes,
        news=tuple(brief.market.news.since(symbols, since, LIST_LIMIT)),
        risks=_risks(moves, rules, closes),
        directions=directions,
        market=market_review(brief.market, now),
        returns=_returns(account, now, session),
    )


def _returns(account, now: datetime, session: str | None) -> tuple[tuple[str, object], ...]:
    """The return of the brief's day (its newest bar's session, else the last closed one) and
    the year's up to it, each a Performance or the one line that says why it cannot be measured."""
    day = session or last_complete_session(now).isoformat()
    out = []
    for label, words, period in (("当日", None, {"start": day, "end": day}), ("今年以来", "ytd", {"end": day})):
        try:
            out.append((label, account.performance(now, words, **period)))
        except RequestError as refused:
            out.append((label, str(refused)))
    return tuple(out)
