"""The whole market's sessions: breadth counted from a snapshot, and the industry boards. A
snapshot of a session replaces an earlier one of the same session (an intraday one is
replaced by the close's)."""

from __future__ import annotations

from pixiu_cli.kernel.store.database import Database, write_transaction
from pixiu_cli.kernel.store.rows import count, dict_rows, flag, optional_text, text
from pixiu_cli.market.fundamentals.store import decimal_text, read_decimal
from pixiu_cli.market.plausible import BREADTH_FIGURES, INDUSTRY_FIGURES, MAX_LISTED, within_bounds
from pixiu_cli.market.review.model import Breadth, IndustryMove, Snapshot

_BREADTH = (
    "session",
    "taken_at",
    "source",
    "closed",
    "stocks",
    "advancers",
    "decliners",
    "flat",
    "suspended",
    "limit_up",
    "limit_down",
    "turnover",
)
_INDUSTRY = (
    "session",
    "code",
    "name",
    "change",
    "advancers",
    "decliners",
    "leader",
    "leader_change",
    "source",
    "taken_at",
)


def _stocks(value) -> int | None:
    """A count of stocks: a whole number from 0 to MAX_LISTED, else None (no count at all)."""
    if value is None or isinstance(value, bool):
        return None
    n = count(value)
    return n if 0 <= n <= MAX_LISTED and (n or value in (0, 0.0, "0")) else None


_optional_count = _stocks


def _breadth(r: dict) -> Breadth | None:
    """The session's breadth; None when a count is none a market could have (a damaged row
    is not shown as zeros)."""
    counts = {k: _stocks(r[k]) for k in _BREADTH[4:11]}
    turnover = within_bounds("turnover", read_decimal(r["turnover"]), BREADTH_FIGURES)
    if None in counts.values() or turnover is None:
        return None
    return Breadth(
        text(r["session"]), text(r["taken_at"]), text(r["source"]), flag(r["closed"]), turnover=turnover, **counts
    )


def _industry(r: dict) -> IndustryMove:
    return IndustryMove(
        text(r["session"]),
        text(r["code"]),
        text(r["name"]),
        within_bounds("change", read_decimal(r["change"]), INDUSTRY_FIGURES),
        _optional_count(r["advancers"]),
        _optional_count(r["decliners"]),
        optional_text(r["leader"]),
        within_bounds("leader_change", read_decimal(r["leader_change"]), INDUSTRY_FIGURES),
        text(r["source"]),
        text(r["taken_at"]),
    )


class MarketReviewStore:
    def __init__(self, db: Database):
        self.db = db

    def write(self, snapshot: Snapshot) -> None:
        b = snapshot.breadth
        with write_transaction(self.db):
            values = [getattr(b, c) for c in _BREADTH[:-1]]
            values[3] = int(b.closed)
            marks = ", ".join("?" for _ in _BREADTH)
            self.db.conn.execute(
                f"insert or replace into market_breadth ({', '.join(_BREADTH)}) values ({marks})",
                [*values, decimal_text(b.turnover)],
            )
            self.db.conn.execute("delete from industry_moves where session = ?", [b.session])
            marks = ", ".join("?" for _ in _INDUSTRY)
            self.db.conn.executemany(
                f"insert or replace into industry_moves ({', '.join(_INDUSTRY)}) values ({marks})",
                [
                    [
                        i.session,
                        i.code,
                        i.name,
                        decimal_text(i.change),
                        i.advancers,
                        i.decliners,
                        i.leader,
                        decimal_text(i.leader_change),
                        i.source,
                        i.taken_at,
                    ]
                    for i in snapshot.industries
                ],
            )

    def latest(self, until: str = "9999") -> Snapshot | None:
        """The newest stored session on or before `until`."""
        rows = dict_rows(
            self.db, "select * from market_breadth where session <= ? order by session desc limit 1", [until]
        )
        breadth = _breadth(rows[0]) if rows else None
        if breadth is None:
            return None
        industries = dict_rows(
            self.db,
            "select * from industry_moves where session = ? order by cast(change as real) desc",
            [breadth.session],
        )
        return Snapshot(breadth, tuple(_industry(r) for r in industries))

    def kept(self) -> bool:
        """Whether any session was ever stored (a daily sync keeps the review current then)."""
        return self.db.conn.execute("select 1 from market_breadth limit 1").fetchone() is not None
