"""An import stores exactly the rows it stored before its writes were batched (many rows per
INSERT statement, the symbol bound once, columns every bar leaves at the default not bound):
the real histories row for row, a write across batch boundaries, with a repeated date, and
with columns at or off their defaults, as one statement per row would have left it."""

from __future__ import annotations

import pytest

from pixiu_cli.market.bars import Bar, BarSeries, SeriesWrite
from pixiu_cli.market.csv_source import parse_bars, read_text
from pixiu_cli.market.store import MarketStore
from tests.helpers import MARKET_FIXTURES, load

AT = "2026-11-30T16:00:00+08:00"


def _stored(db, symbol: str) -> list[tuple]:
    return db.conn.execute(
        "select date, open, high, low, close, volume, amount, trade_status, is_st from market_bars "
        "where symbol = ? order by date",
        [symbol],
    ).fetchall()


def _one_statement_per_row(db, symbol: str, rows: list[tuple]) -> list[tuple]:
    """What the import wrote before: an executemany of one row per statement, on a copy."""
    db.conn.execute(  # market_bars' own definition (kernel/store/schema.py), as a temp table
        "create temp table before (symbol text not null, date text not null, open real, high real, low real, "
        "close real, volume real, amount real, trade_status integer not null default 1, "
        "is_st integer not null default 0, primary key (symbol, date)) without rowid"
    )
    db.conn.executemany(
        "insert or replace into before (symbol, date, open, high, low, close, volume, amount, trade_status, is_st) "
        "values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(symbol, *row) for row in rows],
    )
    kept = db.conn.execute(
        "select date, open, high, low, close, volume, amount, trade_status, is_st from before order by date"
    ).fetchall()
    db.conn.execute("drop table before")
    return kept


@pytest.mark.parametrize("code", ["000001", "000002", "000333"])
def test_a_real_history_is_stored_row_for_row_as_before(db, code):
    result = load(db, code, actions=False)
    series = parse_bars(read_text(MARKET_FIXTURES / f"{code}.csv")).series
    given = [
        (d, o, h, lo, c, v, a, ts, int(st))
        for d, o, h, lo, c, v, a, ts, st in zip(
            series.dates,
            series.open,
            series.high,
            series.low,
            series.close,
            series.volume,
            series.amount,
            series.trade_status,
            series.is_st,
        )
    ]
    stored = _stored(db, code)
    assert stored == _one_statement_per_row(db, code, given)
    assert len(stored) == result.rows == {"000001": 1704, "000002": 2295, "000333": 2380}[code]  # README's counts


def test_the_real_events_are_stored_as_the_files_have_them(db):
    for code in ("000001", "000002", "000333"):
        load(db, code, actions=False)
    rows = {(s, r[0]): r for s in ("000001", "000002", "000333") for r in _stored(db, s)}
    # (date, open, high, low, close, volume, amount, trade_status, is_st), from the files' lines
    assert rows["000001", "2016-06-15"] == ("2016-06-15", 10.33, 10.48, 10.32, 10.44, 37817241.0, None, 1, 0)
    assert rows["000001", "2016-06-16"][1] == 8.57  # ex-rights: (10.44 - 0.153) / 1.2 = 8.57
    assert rows["000002", "2016-07-04"][1:5] == (21.99, 21.99, 21.99, 21.99)  # 一字跌停 on resumption
    assert rows["000002", "2016-07-05"][1:5] == (19.79, 19.79, 19.79, 19.79)
    assert rows["000333", "2016-05-06"][1:5] == (20.97, 21.14, 20.35, 20.35)
    assert rows["000002", "2025-05-30"] == ("2025-05-30", 6.68, 6.7, 6.64, 6.64, 48742045.0, None, 1, 0)


def _days(count: int) -> list[str]:
    from datetime import date, timedelta

    start, out = date(2020, 1, 6), []
    while len(out) < count:
        if start.weekday() < 5:
            out.append(start.isoformat())
        start += timedelta(days=1)
    return out


@pytest.mark.parametrize("count", [1, 199, 200, 201, 450])
def test_a_write_across_batch_boundaries_stores_every_row_once(db, market: MarketStore, count):
    days = _days(count)
    closes = tuple(10.0 + i / 100 for i in range(count))
    series = BarSeries(
        "600000", "none", tuple(days), closes, closes, closes, closes, (100.0,) * count, (None,) * count,
        (1,) * count, (False,) * count,
    )  # fmt: skip
    assert market.write_series(SeriesWrite("600000", series, "csv", AT)) == count
    stored = _stored(db, "600000")
    assert [r[0] for r in stored] == days and [r[4] for r in stored] == list(closes)
    assert market.series(["600000"])[0].rows == count


def test_a_date_given_twice_keeps_the_later_bar_as_before(db, market: MarketStore):
    days = _days(250)
    bars = [Bar(d, 10.0, 10.0, 10.0, 10.0, 100.0) for d in days]
    bars.insert(230, Bar(days[3], 11.0, 11.0, 11.0, 11.0, 200.0))  # in another batch than the first
    market.write_series(SeriesWrite("600000", bars, "csv", AT))
    stored = {r[0]: r for r in _stored(db, "600000")}
    assert len(stored) == 250 and stored[days[3]][4:6] == (11.0, 200.0)
    given = [(b.date, b.open, b.high, b.low, b.close, b.volume, b.amount, b.trade_status, int(b.is_st)) for b in bars]
    assert list(stored.values()) == _one_statement_per_row(db, "600000", given)


def _typed(db, symbol: str) -> list[tuple]:
    return db.conn.execute(
        "select typeof(amount), typeof(trade_status), typeof(is_st), amount, trade_status, is_st from market_bars "
        "where symbol = ? order by date",
        [symbol],
    ).fetchall()


@pytest.mark.parametrize(
    "amounts, statuses, st",
    [
        ((None,) * 230, (1,) * 230, (False,) * 230),  # every column at its default: not bound
        (tuple(1000.0 + i for i in range(230)), (1,) * 230, (False,) * 230),
        ((None,) * 229 + (5.0,), (1,) * 229 + (0,), (False,) * 229 + (True,)),  # one bar off the default
        ((None,) * 230, (0, 1) * 115, (True, False) * 115),
    ],
    ids=["defaults", "amounts", "last-bar-differs", "alternating"],
)
def test_a_column_left_at_its_default_is_stored_as_one_written_out(db, market: MarketStore, amounts, statuses, st):
    days = _days(230)
    closes = tuple(10.0 + i / 100 for i in range(230))
    series = BarSeries(
        "600000", "none", tuple(days), closes, closes, closes, closes, (100.0,) * 230, amounts, statuses, st
    )
    market.write_series(SeriesWrite("600000", series, "csv", AT))
    given = [(d, c, c, c, c, 100.0, a, ts, int(s)) for d, c, a, ts, s in zip(days, closes, amounts, statuses, st)]
    assert _stored(db, "600000") == _one_statement_per_row(db, "600000", given)
    bars = [Bar(d, c, c, c, c, 100.0, a, ts, s) for d, c, a, ts, s in zip(days, closes, amounts, statuses, st)]
    market.write_series(SeriesWrite("600001", bars, "csv", AT))  # the per-Bar path (a sync)
    assert _typed(db, "600001") == _typed(db, "600000")
    assert [r[3:] for r in _typed(db, "600000")] == [(a, ts, int(s)) for a, ts, s in zip(amounts, statuses, st)]
