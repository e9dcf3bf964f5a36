"""What a refresh does per symbol, counted rather than timed: one read of the symbol's bars
(no count over the whole series to find its last day), and an engine that visits only the
days on which something can happen."""

from __future__ import annotations

from datetime import datetime

from pixiu_cli.market.analytics import engine
from pixiu_cli.market.analytics.costs import CostModel
from pixiu_cli.market.analytics.engine import three_year_start
from pixiu_cli.market.analytics.profiles import load_frame
from pixiu_cli.market.analytics.strategies import buy_and_hold, ma_trend
from pixiu_cli.market.calendar import SHANGHAI
from pixiu_cli.market.data import MarketData
from pixiu_cli.market.handle import Market
from tests.helpers import load, sqlite_steps

AFTER_DATA = datetime(2025, 6, 3, 16, 0, tzinfo=SHANGHAI)


def test_a_frame_costs_one_read_of_its_bars(db):
    load(db, "000002", actions=False)  # 2,295 bars; a frame reads the last four years of them
    market = MarketData(Market(db))
    frame = load_frame(market, "000002", AFTER_DATA)
    read = sqlite_steps(db, lambda: market.store.bars("000002", frame.dates[0], frame.dates[-1]))
    whole = sqlite_steps(db, lambda: load_frame(market, "000002", AFTER_DATA))
    assert whole <= 1.1 * read, (read, whole)


def test_the_engine_visits_the_days_something_can_happen(db, monkeypatch):
    load(db, "000333")
    frame = load_frame(MarketData(Market(db)), "000333", datetime(2018, 6, 1, 16, 0, tzinfo=SHANGHAI))
    window = frame.window(three_year_start(frame.dates))
    visited = []
    session = engine._session
    monkeypatch.setattr(engine, "_session", lambda t, *rest: (visited.append(t), session(t, *rest)))
    held = engine.run(window, buy_and_hold(window), CostModel())
    events = int(((window.cash_per_share != 0) | (window.shares_per_share != 0)).sum())
    assert len(held.fills) == 1 and len(visited) <= 1 + events + len(held.blocked), visited
    visited.clear()
    traded = engine.run(window, ma_trend(frame)[three_year_start(frame.dates) :], CostModel())
    assert len(visited) <= 2 * len(traded.fills) + events + len(traded.blocked) + 1 < len(window) / 10
