"""The track record the investor reads: every decision with its outcome so far, the hit
rate, the average outcome and the best and worst, scored fresh from the stored bars."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from pixiu_cli.home.model import Decision
from pixiu_cli.home.store import iso
from pixiu_cli.kernel.db.stores import stores_of
from pixiu_cli.kernel.vocabulary import side_name
from pixiu_cli.market.analytics.frame import Frame
from pixiu_cli.market.analytics.model import DecisionScore
from pixiu_cli.market.analytics.profiles import load_frame
from pixiu_cli.market.analytics.track import HORIZONS, score
from pixiu_cli.market.analytics.versus_csi300 import BenchmarkCloses
from pixiu_cli.market.data import MarketData
from pixiu_cli.market.security_master import security_name

if TYPE_CHECKING:
    from sqlite_utils import Database

if TYPE_CHECKING:  # only named: importing it before pixiu_cli.kernel.db would load numpy and pandas
    from sqlite_utils import Database


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


def track_record(db: Database, now: datetime) -> TrackRecord:
    market, store = MarketData(db), stores_of(db).analytics
    index = BenchmarkCloses(market)
    decisions = store.decisions()
    scores, vs_index = [], {}
    for d in decisions:
        frame = load_frame(market, d.symbol, now, since=d.decided_at[:10])
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
                security_name(market.master, d.symbol),
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
