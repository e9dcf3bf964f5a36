"""A salvage never copies the day counts kept of the bars: a page of bars lost would leave
those counts wrong, so they are counted again from what was saved when first asked."""

from __future__ import annotations

from pixiu_cli.kernel.store.backup import salvage
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.bars import Bar, SeriesWrite
from pixiu_cli.market.store import MarketStore


def test_a_salvage_copies_no_counts_kept_of_the_bars(tmp_path):
    old = open_database(tmp_path / "damaged.db")
    market = MarketStore(old)
    bars = [Bar("2026-01-05", 10.0, 10.5, 9.5, 10.0, 100.0), Bar("2026-01-06", 9.0, 9.5, 8.5, 9.0, 100.0)]
    market.write_series(SeriesWrite("600000", bars, "csv", "2026-02-01T00:00:00"))
    assert market.open_gaps_on("2026-01-06", 0.015, keep=True) == (1, 1)
    assert old.conn.execute("select count(*) from market_gap_days").fetchone()[0] == 1
    old.close()
    new = open_database(tmp_path / "new.db")
    done = salvage(tmp_path / "damaged.db", new)
    assert "market_gap_days" not in done.rows and "market_gap_days" not in done.unreadable
    assert new.conn.execute("select count(*) from market_gap_days").fetchone()[0] == 0
    kept = MarketStore(new).open_gaps_on("2026-01-06", 0.015)  # counted from the bars saved
    assert kept == (1, 1) if done.rows.get("market_bars") else kept == (0, 0)
