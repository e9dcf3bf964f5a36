"""The market queries a refresh makes for one symbol cost the same however many series are
stored: measured in SQLite virtual-machine steps (deterministic, unlike a stopwatch)."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from pixiu_cli.conversation.context.builder import SHANGHAI
from pixiu_cli.market.bars import Bar, CorporateAction, SeriesWrite
from pixiu_cli.market.data import MarketData
from pixiu_cli.market.handle import Market
from pixiu_cli.market.store import MarketStore
from tests.helpers import load, sqlite_steps


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


def _scans(db, statements: list[str], tables: tuple[str, ...]) -> list[str]:
    """Each plan step of `statements` that scans one of `tables` (by name or by its alias)
    instead of searching its key or an index, with the statement."""
    found = []
    for sql in statements:
        names = set(tables) | {m.group(2) for m in re.finditer(rf"\b({'|'.join(tables)})\s+(?:as\s+)?(\w+)", sql)}
        plan = db.conn.execute(f"explain query plan {sql}").fetchall()
        found += [
            f"{detail} ← {sql[:90]}" for *_, detail in plan if detail.startswith("SCAN ") and detail.split()[1] in names
        ]
    return found


def _traced(db, action) -> list[str]:
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)  # each statement with its values bound
    try:
        action()
    finally:
        db.conn.set_trace_callback(None)
    return [s for s in statements if s.lstrip().lower().startswith(("select", "with"))]


def test_a_profile_refresh_of_two_symbols_reads_only_their_bars_decisions_and_profiles(db, market):
    from pixiu_cli.market.analytics.service import profiles

    load(db, "000333")  # with its 2016 action: its unpaid seasons are checked against the market
    load(db, "000001")
    load(db, "000002", actions=False)
    other = market.bars("000002")
    for n in range(20):  # the rest of the market: series no question here is about
        market.write_series(SeriesWrite(f"{600000 + n:06d}", other, "csv", "2026-11-30T16:00:00+08:00"))
    for symbol in ("000333", "000001", "600003"):
        db.conn.execute(
            "insert into decisions (symbol, side, price, quantity, decided_at, source) values (?, 'buy', 10, 100, ?, 'user')",
            [symbol, "2024-03-04T10:00:00+08:00"],
        )
    now = datetime(2025, 6, 3, 16, 0, tzinfo=SHANGHAI)
    profiles(Market(db), ["600003"], now, None, True)  # another symbol's stored profile rows
    statements = _traced(db, lambda: profiles(Market(db), ["000333", "000001"], now, None, True))
    assert _scans(db, statements, ("market_bars", "decisions", "backtests")) == []
    assert any("from market_series s cross join" in s for s in statements)  # the market-wide check ran
    assert not any(
        "'600003'" in s or "'000002'" in s for s in statements if "decisions" in s or "market_bars where symbol" in s
    )


def test_a_day_the_market_opened_low_is_counted_over_the_other_series(db, market):
    load(db, "000333")
    load(db, "000001")
    load(db, "000002", actions=False)
    # 2019-05-06 against 2019-04-30 (May Day between), from the files: 000333 opened 49.90
    # after 52.40 (-4.8 %), 000001 13.10 after 13.85 (-5.4 %), 000002 28.00 after 28.88
    # (-3.0 %): three series with a bar and a close before it, all three at least 1.5 % lower
    assert market.open_gaps_on("2019-05-06", 0.015) == (3, 3)
    assert market.open_gaps_on("2019-05-05", 0.015) == (0, 0)  # a Sunday: no bar anywhere
    assert MarketData(Market(db)).market_open_gaps("2019-05-06") == (3, 3)


def test_a_listed_stock_is_found_without_hashing_the_whole_list():
    from pixiu_cli.market.securities import ListedStock, SecurityList

    # flags as a set: hashing a row fails, so any lookup that hashes the list's rows fails
    row = ListedStock("600519", "SH", "贵州茅台", "贵州茅台", "main", "2001-08-27", None, None, {"U"})
    listing = SecurityList("2026-11-30", (row,))
    assert listing.get("600519") is row and listing.get("000001") is None


def test_every_days_gaps_in_one_read_equal_the_gaps_asked_day_by_day(db, market, monkeypatch):
    import pixiu_cli.market.data as data_module

    load(db, "000333")
    load(db, "000001")
    load(db, "000002", actions=False)
    every_day = market.open_gaps_by_date(0.015)
    days = sorted(every_day)[::40] + ["2019-05-05"]  # a Sunday: (0, 0) either way
    assert {d: market.open_gaps_on(d, 0.015) for d in days} == {d: every_day.get(d, (0, 0)) for d in days}
    now = datetime(2025, 6, 3, 16, 0, tzinfo=SHANGHAI)
    one_by_one = [s.missing_actions for s in MarketData(Market(db)).status(now)]
    monkeypatch.setattr(data_module, "WHOLE_MARKET", 1)  # 3 series: as a status of the whole market reads
    assert [s.missing_actions for s in MarketData(Market(db)).status(now)] == one_by_one
    assert one_by_one[2] == 8  # 000333: one suspected day in each of 2017-2024 (test_missing_actions.py)


def _kept_days(db) -> dict[str, tuple[int, int]]:
    return {d: (g, p) for d, _, g, p in db.conn.execute("select * from market_gap_days order by date")}


def test_a_refresh_keeps_the_days_it_counted_and_the_next_one_reads_them(db, market):
    from pixiu_cli.market.analytics.service import profiles

    load(db, "000333")
    load(db, "000001")
    load(db, "000002", actions=False)
    now = datetime(2025, 6, 3, 16, 0, tzinfo=SHANGHAI)
    first = profiles(Market(db), ["000333"], now, None, True)
    kept = _kept_days(db)
    assert kept and kept == {d: market.open_gaps_by_date(0.015).get(d, (0, 0)) for d in kept}
    statements = _traced(db, lambda: profiles(Market(db), ["000333"], now, None, True))
    assert not any("from market_series s cross join" in s for s in statements)  # no series probed
    assert profiles(Market(db), ["000333"], now, None, True) == first  # the same caveats from kept counts


def test_bars_written_from_a_day_drop_the_kept_days_from_that_day_on(db, market):
    load(db, "000333")
    load(db, "000001")
    load(db, "000002", actions=False)
    days = ("2019-05-06", "2019-06-03", "2020-05-06")
    for day in days:
        market.open_gaps_on(day, 0.015, keep=True)
    assert set(_kept_days(db)) == set(days)
    bars = market.bars("000002")
    i = bars.dates.index("2019-06-03")
    lowered = [Bar(bars.dates[i], bars.close[i - 1] * 0.9, bars.high[i], bars.low[i], bars.close[i], 1000.0)]
    market.write_series(SeriesWrite("000002", lowered, "csv", "2026-11-30T16:00:00+08:00"))
    assert set(_kept_days(db)) == {"2019-05-06"}  # before the written day: its counts cannot move
    recount = market.open_gaps_on("2019-06-03", 0.015, keep=True)
    assert recount == market.open_gaps_by_date(0.015)["2019-06-03"]


def test_a_reader_counts_but_keeps_nothing(db, market):
    load(db, "000333")
    load(db, "000001")
    assert MarketData(Market(db)).market_open_gaps("2019-05-06") == (2, 2)
    assert market.open_gaps_on("2019-05-06", 0.015) == (2, 2) and _kept_days(db) == {}
