"""A refresh computes exactly what it computed before it was made fast: every backtest row,
profile and signal, and every engine run bit for bit (equity, holdings, fills, round trips,
blocked orders), on the real histories with their corporate actions, at two dates (one whose
window holds the ex-rights days and the long suspension, one at the end of the data).

The expected figures in tests/fixtures/market/refresh_expected.json were written by the code
before the change (`python tests/analytics/test_refresh_reference.py` rewrites them; only do
that when a result is meant to change)."""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import asdict
from datetime import datetime
from pathlib import Path

import numpy as np

if __name__ == "__main__":  # run as a script to rewrite the expected figures
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.analytics.costs import CostModel
from pixiu_cli.market.analytics.engine import run, three_year_start
from pixiu_cli.market.analytics.profiles import load_frame
from pixiu_cli.market.analytics.service import refresh
from pixiu_cli.market.analytics.store import AnalyticsStore
from pixiu_cli.market.analytics.strategies import STRATEGIES
from pixiu_cli.market.calendar import SHANGHAI
from pixiu_cli.market.data import MarketData
from pixiu_cli.market.handle import Market
from tests.helpers import MARKET_FIXTURES, load

EXPECTED = MARKET_FIXTURES / "refresh_expected.json"
CODES = ("000001", "000002", "000333")
NOWS = {
    "2018": datetime(2018, 6, 1, 16, 0, tzinfo=SHANGHAI),  # the window holds 2016's events
    "2025": datetime(2025, 6, 3, 16, 0, tzinfo=SHANGHAI),
}


def _digest(*parts) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.tobytes() if isinstance(part, np.ndarray) else repr(part).encode())
    return h.hexdigest()


def _engine_runs(market: MarketData, code: str, now: datetime) -> dict[str, str]:
    frame = load_frame(market, code, now)
    start = three_year_start(frame.dates)
    window, out = frame.window(start), {}
    for name, (_, strategy) in STRATEGIES.items():
        wants = strategy(frame)
        r = run(window, wants[start:], CostModel())
        out[name] = _digest(wants, r.equity, r.holding, r.fills, r.round_trips, r.blocked)
    return out


def computed(db) -> dict:
    for code in CODES:
        load(db, code)
    market, store, out = MarketData(Market(db)), AnalyticsStore(db), {}
    for label, now in NOWS.items():
        refresh(Market(db), CODES, now, None)
        rows = store.backtests(list(CODES))
        out[label] = {
            "backtests": [asdict(r) for r in rows],
            "profiles": _table(db, "profiles where source = 'computed' order by symbol, as_of"),
            "signals": _table(db, "signals order by symbol, as_of"),
            "engine": {code: _engine_runs(market, code, now) for code in CODES},
            "missing_actions": {code: [repr(g) for g in market.missing_actions(code)] for code in CODES},
        }
    return json.loads(json.dumps(out, ensure_ascii=False))


def _table(db, query: str) -> list[dict]:
    cursor = db.conn.execute(f"select * from {query}")
    names = [c[0] for c in cursor.description]
    return [dict(zip(names, row)) for row in cursor]


def test_refresh_computes_what_it_computed_before(db):
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    got = computed(db)
    for label in NOWS:  # one date at a time, so a failure names it
        assert got[label] == expected[label], label


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        database = open_database(Path(tmp) / "pixiu.db")
        EXPECTED.write_text(json.dumps(computed(database), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        database.close()
    print(f"wrote {EXPECTED}")
