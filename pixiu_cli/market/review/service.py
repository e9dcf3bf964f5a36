"""The market review (`pixiu market`, `/market`, the brief's first facts) and the whole-market
snapshot behind it (`pixiu data sync --market`, and the daily sync once one is kept): the
snapshot comes from akshare (baostock has none); a failure writes nothing and keeps what is
stored."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.market.review.breadth import AkshareMarket, MarketReview
from pixiu_cli.market.sources import SourceError

if TYPE_CHECKING:
    from pixiu_cli.market.handle import Market

SNAPSHOT_SOURCE = "akshare"


@dataclass(frozen=True)
class SnapshotRequest:
    timeout: float = 30.0


def sync_snapshot(market: Market, request: SnapshotRequest, now: datetime, module=None):
    """The whole market now: breadth and industry boards, stored for their session."""

    try:
        snapshot = AkshareMarket(timeout=request.timeout, module=module).snapshot(now)
    except SourceError as exc:
        raise RequestError(f"市场快照未更新：{exc}；已保留已存数据") from None
    market.review.write(snapshot)
    return snapshot


def review_record(r: MarketReview) -> dict:
    """`pixiu market --json`: each figure with its session and source."""
    snapshot = r.snapshot
    breadth = snapshot.breadth if snapshot else None
    return {
        "today": r.today,
        "indexes": [
            {
                "key": m.key,
                "name": m.name,
                "close": float(m.close),
                "date": m.date,
                "previous_close": float(m.previous_close) if m.previous_close is not None else None,
                "previous_date": m.previous_date,
                "change": round(float(m.change), 6) if m.change is not None else None,
                "source": m.source,
            }
            for m in r.indexes
        ],
        "indexes_missing": list(r.missing),
        "breadth": {
            "session": breadth.session,
            "taken_at": breadth.taken_at,
            "closed": breadth.closed,
            "source": breadth.source,
            "stocks": breadth.stocks,
            "advancers": breadth.advancers,
            "decliners": breadth.decliners,
            "flat": breadth.flat,
            "suspended": breadth.suspended,
            "limit_up": breadth.limit_up,
            "limit_down": breadth.limit_down,
            "turnover": float(breadth.turnover),
        }
        if breadth
        else None,
        "industries": [
            {
                "session": i.session,
                "code": i.code,
                "name": i.name,
                "change": float(i.change) if i.change is not None else None,
                "advancers": i.advancers,
                "decliners": i.decliners,
                "leader": i.leader,
                "leader_change": float(i.leader_change) if i.leader_change is not None else None,
                "source": i.source,
            }
            for i in (snapshot.industries if snapshot else ())
        ],
        "not_published": [{"name": d.name, "since": d.since, "note": d.note} for d in r.discontinued],
    }
