"""The market queries a refresh makes for one symbol cost the same however many series are
stored: measured in SQLite virtual-machine steps (deterministic, unlike a stopwatch)."""

from __future__ import annotations

from datetime import date, timedelta

from pixiu_cli.domain.market import Bar, CorporateAction, SeriesWrite
from pixiu_cli.market.data import MarketData
from pixiu_cli.store.market import MarketStore
from tests.helpers import sqlite_steps


def _store_series(market: MarketStore, count: int, days: int = 30) -> None:
    start = date(2026, 1, 5)
    for n in range(count):
        symbol = f"{600000 + n:06d}"
        bars = [
            Bar((start + timedelta(days=d)).isoformat(), 10.0 + d, 11.0 + d, 9.0 + d, 10.5 + d, 1000.0)
            for d in range(days)
        ]
        action = CorporateAction(symbol, bars[10].date, 0.5, 0.0, None, "csv", "file", "2026-02-01T00:00:00")
        market.write_series(SeriesWrite(symbol, bars, "csv", "2026-02-01T00:00:00", actions=(action,)))


def test_one_symbols_series_costs_the_same_with_10_or_300_stored(db, market):
    _store_series(market, 10)
    few = sqlite_steps(db, lambda: market.series(["600003"]))
    _store_series(market, 300)
    many = sqlite_steps(db, lambda: market.series(["600003"]))
    assert many <= 1.2 * few, (few, many)
    info = market.series(["600003", "999999"])
    assert (info[0].rows, info[0].first, info[0].source) == (30, "2026-01-05", "csv")
    assert (info[1].rows, info[1].first, info[1].source, info[1].stale) == (0, None, None, False)


def test_every_series_in_one_pass_matches_asking_one_by_one(db, market):
    _store_series(market, 12)
    whole = market.series()
    assert [s.symbol for s in whole] == sorted(s.symbol for s in whole) and len(whole) == 12
    assert whole == [market.series([s.symbol])[0] for s in whole]


def test_missing_actions_reads_the_whole_market_once_per_version(db, market):
    _store_series(market, 40)
    data = MarketData(db)
    first = sqlite_steps(db, lambda: data.missing_actions("600001"))
    later = sqlite_steps(db, lambda: data.missing_actions("600002"))
    assert later * 5 < first, (first, later)  # the market-wide gaps were kept
    fresh = MarketData(db)
    assert fresh.missing_actions("600002") == data.missing_actions("600002")


def test_a_listed_stock_is_found_without_hashing_the_whole_list():
    from pixiu_cli.market.security_list import ListedStock, SecurityList

    # flags as a set: hashing a row fails, so any lookup that hashes the list's rows fails
    row = ListedStock("600519", "SH", "贵州茅台", "贵州茅台", "main", "2001-08-27", None, None, {"U"})
    listing = SecurityList("2026-11-30", (row,))
    assert listing.get("600519") is row and listing.get("000001") is None
