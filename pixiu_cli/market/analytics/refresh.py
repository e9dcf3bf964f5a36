"""After bars are imported or synced: recompute the profiles and signals of those symbols,
evaluate their alert rules, and score the decisions that now have enough bars after them.

The track record the investor reads: every decision with its outcome so far, the hit
rate, the average outcome and the best and worst, scored fresh from the stored bars.

The decision track record: every recorded buy or sell scored from the bars 5 and 20
sessions after it. `return_Nd` is the stock's move from the decision price; `outcome_Nd` is
what the decision earned against doing nothing (a buy gains the move, a sell avoids it);
`vs_stock_Nd` is the outcome against the stock's own move from that day's close, i.e. whether
the price and timing beat simply trading at the close.

Alert rules evaluated on completed bars: a rule fires on the bar where its condition
becomes true (a cross, not every day below), at most once per bar date, and then rests for
its cooldown. Prices are real (unadjusted); "yesterday" is the ex-rights reference price, so
a dividend gap never looks like a cross. The cost of a drawdown-from-cost rule is adjusted
from the day it was recorded, so the frame handed in must reach back to that day."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from pixiu_cli.home.model import Decision
from pixiu_cli.kernel.clock import iso
from pixiu_cli.kernel.vocabulary import side_name
from pixiu_cli.market.analytics.costs import CostModel
from pixiu_cli.market.analytics.engine import Frame
from pixiu_cli.market.analytics.metrics import BenchmarkCloses
from pixiu_cli.market.analytics.model import AlertRule, DecisionScore
from pixiu_cli.market.analytics.profiles import load_frame, profile_symbol
from pixiu_cli.market.analytics.rules import describe
from pixiu_cli.market.analytics.signals import fused_signal
from pixiu_cli.market.analytics.store import AnalyticsStore
from pixiu_cli.market.data import MarketData
from pixiu_cli.market.security_master import security_name

HORIZONS = (5, 20)


def score(decision: Decision, frame: Frame, scored_at: str) -> DecisionScore:
    values: dict[str, float | None] = {}
    t0 = int(np.searchsorted(np.asarray(frame.dates), decision.decided_at[:10]))
    sign = 1.0 if decision.side == "buy" else -1.0
    for n in HORIZONS:
        ret = outcome = vs = None
        if frame.dates and decision.decided_at[:10] >= frame.dates[0] and t0 + n < len(frame):
            factor = frame.adj_close[t0] / frame.close[t0]
            later = frame.adj_close[t0 + n]
            ret = float(later / (decision.price * factor) - 1)
            own = float(later / frame.adj_close[t0] - 1)
            outcome, vs = sign * ret, sign * (ret - own)
        values[f"return_{n}d"], values[f"outcome_{n}d"], values[f"vs_stock_{n}d"] = ret, outcome, vs
    return DecisionScore(
        decision.id,
        values["return_5d"],
        values["return_20d"],
        values["outcome_5d"],
        values["outcome_20d"],
        values["vs_stock_5d"],
        values["vs_stock_20d"],
        scored_at,
    )


@dataclass(frozen=True)
class Firing:
    bar_date: str
    message: str


def _conditions(
    rule: AlertRule, frame: Frame, cost: float | None, cost_day: str | None
) -> tuple[np.ndarray, np.ndarray] | None:
    """Per bar: is the rule's condition true at that close, and was it true the day before?
    For a price line "the day before" is the reference price (yesterday's close after any
    ex-rights that morning), so a dividend gap across the line is no cross."""
    c, ref = frame.close, frame.reference
    if rule.kind == "below":
        return c < rule.threshold, ref < rule.threshold
    if rule.kind == "above":
        return c > rule.threshold, ref > rule.threshold
    if rule.kind == "change_pct":
        today = np.abs(c / ref - 1) * 100 >= rule.threshold - 1e-9
        return today, np.zeros(len(frame), dtype=bool)  # a big daily move is an event every day it happens
    if cost is None:
        return None
    # the cost in today's front-adjusted terms: bonus shares and dividends since the purchase lower it
    base = int(np.searchsorted(np.asarray(frame.dates), cost_day)) if cost_day else 0
    factor = frame.adj_close / frame.close
    adjusted_cost = cost * factor[min(base, len(frame) - 1)]
    today = (frame.adj_close / adjusted_cost - 1) * 100 <= -rule.threshold + 1e-9
    return today, np.concatenate([[False], today[:-1]])


def _message(rule: AlertRule, frame: Frame, i: int) -> str:
    price, day = frame.close[i], frame.dates[i]
    change = (frame.close[i] / frame.reference[i] - 1) * 100 if i else 0.0
    return f"{day} 收盘 {price:.2f} 元（当日 {change:+.2f}%）"


def evaluate(rule: AlertRule, frame: Frame, *, cost: float | None = None, cost_day: str | None = None) -> list[Firing]:
    """Firings on bars after `rule.checked_through` (the rule's creation day when never checked)."""
    conditions = _conditions(rule, frame, cost, cost_day)
    if conditions is None or len(frame) < 2:
        return []
    condition, before = conditions
    dates = frame.dates
    after = rule.checked_through or rule.created_at[:10]
    start = max(int(np.searchsorted(np.asarray(dates), after, side="right")), 1)
    rest_until = -1
    if rule.last_fired_on and rule.last_fired_on in dates:
        rest_until = dates.index(rule.last_fired_on) + rule.cooldown_days
    firings = []
    for i in range(start, len(dates)):
        if not condition[i] or before[i] or i <= rest_until or not frame.traded[i]:
            continue
        firings.append(Firing(dates[i], _message(rule, frame, i)))
        rest_until = i + rule.cooldown_days
    return firings


if TYPE_CHECKING:
    from pixiu_cli.market.handle import Market


@dataclass
class RefreshSummary:
    profiles: list[str] = field(default_factory=list)
    signals: list[str] = field(default_factory=list)
    fired: list[str] = field(default_factory=list)  # one line per new alert
    scored: int = 0
    too_short: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = []
        if self.profiles:
            out.append(f"已更新回测画像 {len(self.profiles)} 只、融合信号 {len(self.signals)} 只（本地计算）")
        if self.too_short:
            out.append(f"数据不足 120 根日线，未计算画像：{'、'.join(self.too_short)}")
        out += [f"预警触发：{line}" for line in self.fired]
        if self.scored:
            out.append(f"已为 {self.scored} 条操作决策计算事后表现")
        return out


def _alerts(
    market: Market,
    data: MarketData,
    store: AnalyticsStore,
    symbols: Sequence[str],
    now: datetime,
    summary: RefreshSummary,
) -> None:
    domain = market.investor
    for rule in store.rules(symbols):
        holding = domain.holding(rule.symbol)
        cost_day = (holding.updated_at or "")[:10] or None if holding else None
        since = min(rule.checked_through or rule.created_at[:10], rule.created_at[:10])
        if rule.kind == "drawdown_from_cost" and cost_day:
            since = min(since, cost_day)  # every ex-rights event since the purchase moves the cost
        frame = load_frame(data, rule.symbol, now, since=since)
        if frame is None:
            continue
        firings = evaluate(rule, frame, cost=holding.cost if holding else None, cost_day=cost_day)
        security = data.master.get(rule.symbol)
        text = describe(rule.kind, rule.threshold, rule.symbol, security.name if security else None)
        # dated at the close of the bar that fired it, not when the import or sync ran
        fired = [(f.bar_date, text, f"{text}：{f.message}", _close_of(f.bar_date, now)) for f in firings]
        store.record_check(rule.id, through=frame.dates[-1], fired=fired, at=iso(now))
        summary.fired += [f"a{rule.id} {message}" for _, _, message, _ in fired]


def _close_of(bar_date: str, now: datetime) -> str:
    """The moment a daily bar closed (15:00 Beijing time), never later than now."""
    close = datetime.fromisoformat(f"{bar_date}T15:00:00+08:00")
    return iso(min(close, now) if now.tzinfo else close)


def refresh(market: Market, symbols: Sequence[str], now: datetime, costs: CostModel | None = None) -> RefreshSummary:
    """Only the symbols named: none changed (a sync that failed or fetched nothing) is
    nothing to recompute, never every stored decision and rule."""
    if not symbols:
        return RefreshSummary()
    costs = costs or CostModel()
    data, store, summary = MarketData(market, keep_gaps=True), market.analytics, RefreshSummary()
    stamp = iso(now)
    for symbol in symbols:
        frame = load_frame(data, symbol, now)  # read once for the profile and the signal
        computed = profile_symbol(data, symbol, now, costs, frame) if frame is not None else None
        if computed is None:
            summary.too_short.append(symbol)
            continue
        rows, profile = computed
        store.save_profile(rows, profile)
        summary.profiles.append(symbol)
        signal = fused_signal(frame) if frame is not None else None
        if signal is not None:
            store.save_signal(symbol, signal.score, signal.direction, signal.components, signal.as_of)
            summary.signals.append(symbol)
    _alerts(market, data, store, symbols, now, summary)
    scores = []
    for decision in store.decisions(symbols):
        frame = load_frame(data, decision.symbol, now, since=decision.decided_at[:10])
        if frame is not None:
            scores.append(score(decision, frame, stamp))
    store.save_scores(scores)
    summary.scored = sum(1 for s in scores if s.return_5d is not None)
    return summary


@dataclass(frozen=True)
class TrackRow:
    id: str  # d<id>
    symbol: str
    name: str | None
    side: str
    price: float
    quantity: float
    decided_at: str
    return_5d: float | None
    return_20d: float | None
    outcome_5d: float | None
    outcome_20d: float | None
    vs_stock_5d: float | None
    vs_stock_20d: float | None
    # the outcome against 沪深300's move over the same sessions (a buy earns the stock's excess
    # over the index, a sell avoids it); None without the index's bars
    vs_csi300_5d: float | None = None
    vs_csi300_20d: float | None = None

    def side_label(self) -> str:
        return side_name(self.side)

    @property
    def outcome(self) -> float | None:
        """The longest horizon scored so far."""
        return self.outcome_20d if self.outcome_20d is not None else self.outcome_5d


@dataclass(frozen=True)
class TrackRecord:
    rows: list[TrackRow]
    benchmark: str | None = None  # 沪深300 when its bars are stored

    @property
    def scored(self) -> list[TrackRow]:
        return [r for r in self.rows if r.outcome is not None]

    def summary_lines(self) -> list[str]:
        scored = self.scored
        if not scored:
            return [f"共 {len(self.rows)} 条决策，尚无足够的后续日线可评分（需要决策后至少 5 个交易日的日线）。"]
        hits = sum(1 for r in scored if r.outcome > 0)
        average = sum(r.outcome for r in scored) / len(scored)
        best, worst = max(scored, key=lambda r: r.outcome), min(scored, key=lambda r: r.outcome)
        return [
            f"已评分 {len(scored)}/{len(self.rows)} 条：命中率 {hits / len(scored):.0%}（{hits} 条事后有利），"
            f"平均 {average:+.1%}（20 日，不足 20 日的按 5 日）",
            f"最好 {best.id} {best.symbol} {best.side_label()} {best.outcome:+.1%}；"
            f"最差 {worst.id} {worst.symbol} {worst.side_label()} {worst.outcome:+.1%}",
        ]


def track_record(market: Market, now: datetime) -> TrackRecord:
    data, store = MarketData(market), market.analytics
    index = BenchmarkCloses(data)
    decisions = store.decisions()
    scores, vs_index = [], {}
    for d in decisions:
        frame = load_frame(data, d.symbol, now, since=d.decided_at[:10])
        if frame is not None:
            scores.append(score(d, frame, iso(now)))
            vs_index[d.id] = _vs_index(d, frame, scores[-1], index)
    store.save_scores(scores)
    by_id = {s.decision_id: s for s in scores}
    rows = []
    for d in decisions:
        s = by_id.get(d.id)
        rows.append(
            TrackRow(
                f"d{d.id}",
                d.symbol,
                security_name(data.master, d.symbol),
                d.side,
                d.price,
                d.quantity,
                d.decided_at,
                *(
                    getattr(s, k) if s else None
                    for k in ("return_5d", "return_20d", "outcome_5d", "outcome_20d", "vs_stock_5d", "vs_stock_20d")
                ),
                *vs_index.get(d.id, (None, None)),
            )
        )
    return TrackRecord(rows, index.name if index else None)


def _vs_index(d: Decision, frame: Frame, s: DecisionScore, index: BenchmarkCloses) -> tuple[float | None, ...]:
    """sign × (the stock's move from the decision price − 沪深300's from that day's close), per horizon."""
    if not index:
        return (None,) * len(HORIZONS)
    t0 = bisect_left(frame.dates, d.decided_at[:10])  # the session score() starts from
    sign = 1.0 if d.side == "buy" else -1.0
    out = []
    for n, ret in zip(HORIZONS, (s.return_5d, s.return_20d)):
        move = index.move(frame.dates[t0], frame.dates[t0 + n]) if ret is not None else None
        out.append(None if move is None else sign * (ret - move))
    return tuple(out)
