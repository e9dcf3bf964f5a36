"""Synthetic bars with results worked out by hand, and the real histories in
tests/fixtures/market/ (provenance in its README)."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from pixiu_cli.analytics.costs import CostModel
from pixiu_cli.analytics.frame import build_frame
from pixiu_cli.store.market import Bar, BarSeries, CorporateAction

NO_COSTS = CostModel(commission_rate=0.0, commission_min=0.0, transfer_fee_rate=0.0, slippage_bps=0.0)


def weekdays(start: str, count: int) -> list[str]:
    day, out = date.fromisoformat(start), []
    while len(out) < count:
        if day.weekday() < 5:
            out.append(day.isoformat())
        day += timedelta(days=1)
    return out


def series(symbol: str, rows, start: str = "2024-03-04") -> BarSeries:
    """rows: close, or (open, close), or (open, high, low, close[, traded[, is_st]]) per day."""
    bars = []
    for day, row in zip(weekdays(start, len(rows)), rows):
        row = (row, row) if isinstance(row, (int, float)) else row
        if len(row) == 2:
            o, c = row
            row = (o, max(o, c), min(o, c), c)
        o, h, lo, c, *rest = row
        traded = rest[0] if rest else True
        bars.append(Bar(day, o, h, lo, c, 1_000_000.0 if traded else 0.0, None, int(traded), bool(rest[1:] and rest[1])))
    return BarSeries.from_bars(symbol, "none", bars)


def frame_of(symbol: str, rows, actions: list[CorporateAction] = (), start: str = "2024-03-04", list_date=None):
    raw = series(symbol, rows, start)
    return build_frame(raw, list(actions), list_date=list_date)


@pytest.fixture
def no_costs() -> CostModel:
    return NO_COSTS


@pytest.fixture
def db(tmp_path):
    from pixiu_cli.store.database import open_database

    database = open_database(tmp_path / "pixiu.db")
    yield database
    database.close()
