"""The market review (`pixiu market`, `/market`, the context's 市场概况, the brief's first
facts): the index benchmarks' last closes and moves from their stored bars, the newest
stored whole-market session (breadth and industry boards), and the series that are no
longer published (data/market/discontinued.toml), each with its date and source."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from datetime import datetime
from functools import cache

from pixiu_cli.account.ledger import dec
from pixiu_cli.kernel.db.stores import stores_of
from pixiu_cli.kernel.resources import data_dir
from pixiu_cli.market.index_benchmarks import BENCHMARKS
from pixiu_cli.market.review.model import Discontinued, IndexMove, IndustryMove, Snapshot
from pixiu_cli.market.store import MarketStore
from pixiu_cli.market.trading_days import as_shanghai

SHOWN_INDUSTRIES = 3


@dataclass(frozen=True)
class MarketReview:
    today: str
    indexes: tuple[IndexMove, ...]
    missing: tuple[str, ...]  # benchmarks without stored bars, by name
    snapshot: Snapshot | None
    discontinued: tuple[Discontinued, ...]

    @property
    def empty(self) -> bool:
        return not self.indexes and self.snapshot is None

    def _ranked(self) -> list[IndustryMove]:
        """The boards with a move, strongest first."""
        ranked = [i for i in self.snapshot.industries if i.change is not None] if self.snapshot else []
        return sorted(ranked, key=lambda i: -i.change)

    def strongest(self, n: int = SHOWN_INDUSTRIES) -> tuple[IndustryMove, ...]:
        """The top n, or the top half of fewer than 2n boards (a board is never both)."""
        ranked = self._ranked()
        return tuple(ranked[: min(n, (len(ranked) + 1) // 2)])

    def weakest(self, n: int = SHOWN_INDUSTRIES) -> tuple[IndustryMove, ...]:
        ranked = self._ranked()
        rest = ranked[len(self.strongest(n)) :]
        return tuple(reversed(rest[-n:])) if rest else ()


@cache
def discontinued_series() -> tuple[Discontinued, ...]:
    data = tomllib.loads((data_dir() / "market" / "discontinued.toml").read_text(encoding="utf-8"))
    return tuple(Discontinued(s["name"], s["since"], s["note"]) for s in data.get("series", []))


def _index_moves(market: MarketStore, today: str) -> tuple[list[IndexMove], list[str]]:
    moves, missing = [], []
    closes = market.last_closes([b.key for b in BENCHMARKS])
    for b in BENCHMARKS:
        if b.key not in closes:
            missing.append(b.name)
            continue
        day, close = closes[b.key]
        before = market.close_before(b.key, day)
        moves.append(
            IndexMove(
                b.key,
                b.name,
                day,
                dec(close),
                before[0] if before else None,
                dec(before[1]) if before else None,
                market.source(b.key),
            )
        )
    return moves, missing


def market_review(db, now: datetime) -> MarketReview:
    today = as_shanghai(now).date().isoformat()
    moves, missing = _index_moves(stores_of(db).market, today)
    snapshot = stores_of(db).market_review.latest(today)
    gone = tuple(d for d in discontinued_series() if d.since <= today)
    return MarketReview(today, tuple(moves), tuple(missing), snapshot, gone)
