"""Market tables: unadjusted daily bars, corporate actions, series provenance and freshness,
trading days and the watch list. Reads return domain/market.py's types; adjustment happens above the
store (pixiu_cli/market/bars.py), never in a stored row.

The security master: codes, names, boards and kinds of every security pixiu can name, and
the user's aliases. Name matching (context/) reads it; market-data syncs and imports write it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from functools import cache, partial
from itertools import chain

from pixiu_cli.kernel.safe_text import scrub
from pixiu_cli.kernel.store.database import Database, write_transaction
from pixiu_cli.kernel.store.rows import (
    MAX_READABLE,
    SkippedRow,
    count,
    dict_rows,
    flag,
    number,
    readable,
    record,
    skip_or_refuse,
    text,
    unreadable,
)
from pixiu_cli.market.bars import BarSeries, CorporateAction, SeriesInfo, SeriesWrite
from pixiu_cli.market.plausible import ACTION_BOUNDS, MAX_PRICE, MAX_SHARES
from pixiu_cli.market.securities import Alias, Security


def _action(r) -> CorporateAction:
    """A stored action whose numbers `unreadable` passed."""
    return record(
        CorporateAction,
        r,
        "corporate_actions",
        cash_per_share=number(r["cash_per_share"]) or 0.0,
        shares_per_share=number(r["shares_per_share"]) or 0.0,
        ratio=number(r["ratio"]),
    )


_PRICE_COLUMNS = ("open", "high", "low", "close", "volume")


def _only(kind: type, column: tuple) -> bool:
    """Every value is exactly `kind` (the types are gathered in C: no Python loop)."""
    return set(map(type, column)) == {kind}


# A stored bar's columns read back within what the bar gate lets in (domain/plausible.py):
# open, high, low, close, volume, amount.
_BAR_BOUNDS = (MAX_PRICE, MAX_PRICE, MAX_PRICE, MAX_PRICE, MAX_SHARES, MAX_READABLE)


def _price(value, bound: float = MAX_PRICE) -> bool:
    return value is not None and readable(number(value), bound)


def _readable_bar(row: tuple) -> bool:
    """A stored bar whose prices and volume are finite numbers within reach (and its amount,
    when it has one): any other is left out of every series, as a day without a bar."""
    *values, amount = row[1:7]
    return all(map(_price, values, _BAR_BOUNDS)) and (amount is None or _price(amount, _BAR_BOUNDS[-1]))


def _stored_prices(rows: list) -> bool:
    """Every bar as every import and sync writes it (checked in C, column by column)."""
    columns = list(zip(*rows))[1:7]
    *values, amounts = columns
    fine = all(_only(float, c) and all(map(partial(readable, bound=b), c)) for c, b in zip(values, _BAR_BOUNDS))
    return (
        fine
        and set(map(type, amounts)) <= {float, type(None)}
        and all(x is None or readable(x, _BAR_BOUNDS[-1]) for x in amounts)
    )


def _as(kind: type, read, column: tuple) -> tuple:
    """`column` when every value already is `kind` (no work), else each value read."""
    return column if _only(kind, column) else tuple(read(x) for x in column)


def _newest_close(cursor) -> tuple[str, float] | None:
    """The first (date, close) of `cursor` (newest first) whose close is a price: a bar left
    unreadable gives way to the one before it."""
    for day, close in cursor:
        if _price(close):
            return text(day), float(number(close))
    return None


_META = "source, origin, file_adjusted, volume_unit, last_sync_at, last_error, stale"
_EXTENT = "symbol, count(*), min(date), max(date) from market_bars"
_CHUNK = 500  # SQLite's variable limit is 999 on old builds
# Each stored series (market_series lists every one write_series wrote) by two probes of the
# key: its bar on the day and the close before it; CROSS JOIN keeps that order, so no plan
# reads a series' bars.
_OPEN_GAPS_ON = (
    "select coalesce(sum(open <= prev * (1 - ?)), 0), count(*) from (select b.open, "
    "(select p.close from market_bars p where p.symbol = s.symbol and p.date < ? order by p.date desc limit 1) "
    "as prev from market_series s cross join market_bars b where b.symbol = s.symbol and b.date = ?) where prev > 0"
)


def _series_info(symbol: str, extent: tuple | None, meta: tuple | None) -> SeriesInfo:
    rows, first, last = extent or (0, None, None)
    source, origin, file_adjusted, volume_unit, last_sync_at, last_error, stale = meta or (None,) * 7
    return SeriesInfo(
        symbol, rows, first, last, source, origin, file_adjusted, volume_unit, last_sync_at, last_error, bool(stale)
    )


def _bar_columns(w: SeriesWrite) -> tuple[tuple, ...]:
    """The columns to write (date … is_st, as _BAR_FIELDS): a BarSeries' own (an import), else per Bar."""
    if isinstance(w.bars, BarSeries):
        b = w.bars
        return (b.dates, b.open, b.high, b.low, b.close, b.volume, b.amount, b.trade_status, b.is_st)
    fields = [(b.date, b.open, b.high, b.low, b.close, b.volume, b.amount, b.trade_status, b.is_st) for b in w.bars]
    return tuple(zip(*fields))


_BAR_FIELDS = ("date", "open", "high", "low", "close", "volume", "amount", "trade_status", "is_st")
# The columns a series may leave out when every bar has the table's default: an import's
# file without amounts, of days traded, none of them under ST.
_DEFAULTS = {"amount": None, "trade_status": 1, "is_st": 0}
_ROWS_PER_INSERT = 200  # measured: a third less CPU than a statement per row; more gains nothing


@cache
def _insert_statement(names: tuple[str, ...], rows: int) -> str:
    """`rows` rows of the columns `names` after the symbol, which is bound once (?1)."""
    width = len(names)
    marks = ", ".join("(?1, " + ", ".join(f"?{2 + r * width + i}" for i in range(width)) + ")" for r in range(rows))
    return f"insert or replace into market_bars (symbol, {', '.join(names)}) values {marks}"


def _insert_bars(conn, symbol: str, columns: tuple[tuple, ...]) -> None:
    """Many rows per INSERT statement (SQLite's per-statement work, paid once per row by a
    plain executemany, is most of an import's writing), the symbol bound once per statement
    and a column every bar leaves at its default not bound at all: fewer values to bind is
    less CPU for the same stored rows (`insert or replace` writes the default)."""
    count = min(map(len, columns), default=0)  # as zip reads them: to the shortest column
    if not count:
        return
    names, kept = [], []
    for name, column in zip(_BAR_FIELDS, columns):
        column = column if len(column) == count else tuple(column[:count])
        if name not in _DEFAULTS or column.count(_DEFAULTS[name]) != count:
            names.append(name)
            kept.append(tuple(map(int, column)) if name == "is_st" else column)
    rows = list(zip(*kept))
    width = len(names)
    per = min(_ROWS_PER_INSERT, (conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) - 1) // width)
    full = count - count % per
    batches = ([symbol, *chain.from_iterable(rows[i : i + per])] for i in range(0, full, per))
    conn.executemany(_insert_statement(tuple(names), per), batches)
    if full < count:
        conn.execute(_insert_statement(tuple(names), count - full), [symbol, *chain.from_iterable(rows[full:])])


class MarketStore:
    def __init__(self, db: Database):
        self.db = db

    def version(self) -> int:
        """Changes with every write to the market tables (valuations are cached on it)."""
        return self.db.conn.execute("select version from market_version where id = 1").fetchone()[0]

    def _bump(self) -> None:
        self.db.conn.execute("update market_version set version = version + 1 where id = 1")

    # writes ----------------------------------------------------------------------
    def write_series(self, w: SeriesWrite) -> int:
        """Bars upserted by date, actions by (ex_date, source), provenance and a fresh sync
        mark — one transaction, so a failure leaves the symbol as it was."""
        with write_transaction(self.db):
            if len(w.bars):
                self._forget_gaps_from(w.bars)
            _insert_bars(self.db.conn, w.symbol, _bar_columns(w))
            if w.replace_actions_from:
                self.db.conn.execute(
                    "delete from corporate_actions where symbol = ? and source = ?", [w.symbol, w.replace_actions_from]
                )
            self._insert_actions(w.actions)
            self.db.conn.execute(
                "insert into market_series (symbol, source, origin, file_adjusted, volume_unit, last_sync_at, "
                "last_error, stale) values (?, ?, ?, ?, ?, ?, null, 0) on conflict(symbol) do update set "
                "source = excluded.source, origin = excluded.origin, file_adjusted = excluded.file_adjusted, "
                "volume_unit = excluded.volume_unit, last_sync_at = excluded.last_sync_at, last_error = null, "
                "stale = 0",
                [w.symbol, w.source, w.origin, w.file_adjusted, w.volume_unit, w.at],
            )
            self._bump()
        return len(w.bars)

    def _forget_gaps_from(self, bars) -> None:
        """Bars written from a date on change the kept day counts from that date on: their own
        days and the day of the series' next bar (whose previous close they may be)."""
        first = min(bars.dates) if isinstance(bars, BarSeries) else min(b.date for b in bars)
        self.db.conn.execute("delete from market_gap_days where date >= ?", [first])

    def _insert_actions(self, actions: Iterable[CorporateAction]) -> None:
        self.db.conn.executemany(
            "insert or replace into corporate_actions (symbol, ex_date, cash_per_share, shares_per_share, ratio, "
            "source, method, fetched_at) values (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (a.symbol, a.ex_date, a.cash_per_share, a.shares_per_share, a.ratio, a.source, a.method, a.fetched_at)
                for a in actions
            ],
        )

    def mark_failed(self, symbol: str, error: str, at: str) -> None:
        """A sync that failed keeps the stored bars and says why; the series is stale."""
        with write_transaction(self.db):
            self.db.conn.execute(
                "insert into market_series (symbol, last_error, stale) values (?, ?, 1) on conflict(symbol) "
                "do update set last_error = excluded.last_error, stale = 1",
                [symbol, f"{at} {scrub(error)}"],  # a source's error may carry a proxy's credentials
            )
            self._bump()

    def add_trading_days(self, days: Iterable[str], source: str) -> None:
        with write_transaction(self.db):
            self.db.conn.executemany(
                "insert or replace into trading_days (date, source) values (?, ?)", [(d, source) for d in days]
            )
            self._bump()

    def watch(self, symbol: str, at: str) -> bool:
        with write_transaction(self.db):
            cursor = self.db.conn.execute(
                "insert or ignore into watchlist (symbol, added_at) values (?, ?)", [symbol, at]
            )
        return cursor.rowcount > 0

    def unwatch(self, symbol: str) -> bool:
        with write_transaction(self.db):
            cursor = self.db.conn.execute("delete from watchlist where symbol = ?", [symbol])
        return cursor.rowcount > 0

    # reads -----------------------------------------------------------------------
    def bars(self, symbol: str, start: str | None = None, end: str | None = None) -> BarSeries:
        """Unadjusted bars, oldest first, within [start, end] (either open)."""
        rows = self.db.conn.execute(
            "select date, open, high, low, close, volume, amount, trade_status, is_st from market_bars "
            "where symbol = ? and date >= ? and date <= ? order by date",
            [symbol, start or "", end or "9999"],
        ).fetchall()
        if rows and not _stored_prices(rows):
            rows = [r for r in rows if _readable_bar(r)]
        if not rows:
            return BarSeries(symbol, "none")
        d, *columns = zip(*rows)
        d = _as(str, text, d)
        o, h, lo, c, v = (_as(float, number, column) for column in columns[:5])
        a = columns[5] if set(map(type, columns[5])) <= {float, type(None)} else tuple(map(number, columns[5]))
        ts = _as(int, count, columns[6])
        st = tuple(map(bool, columns[7])) if _only(int, columns[7]) else tuple(flag(x) for x in columns[7])
        return BarSeries(symbol, "none", d, o, h, lo, c, v, a, ts, st)

    def last_date(self, symbol: str) -> str | None:
        """The date of the symbol's newest bar (one probe of the key)."""
        row = self.db.conn.execute("select max(date) from market_bars where symbol = ?", [symbol]).fetchone()
        return text(row[0]) if row[0] is not None else None

    def source(self, symbol: str) -> str | None:
        """Where the symbol's stored series came from (csv, baostock, …), None if unrecorded."""
        row = self.db.conn.execute("select source from market_series where symbol = ?", [symbol]).fetchone()
        return text(row[0]) if row and row[0] is not None else None

    def open_gaps_on(self, day: str, min_fall: float, keep: bool = False) -> tuple[int, int]:
        """(series that opened at least `min_fall` below their previous close on `day`, series
        with a bar that day after an earlier one), over every stored series: the counts kept
        for the day when no bar written since could change them, else a few index probes per
        series (its bar that day, the bar before), never a read of each series' bars. `keep`
        (a refresh, which writes anyway): the counts are kept, counted within the write lock
        so no write of bars can fall between counting and keeping."""
        kept = self._kept_gaps(day, min_fall)
        if kept is not None or not keep:
            return kept or self._count_gaps(day, min_fall)
        with write_transaction(self.db):
            kept = self._kept_gaps(day, min_fall)
            if kept is None:
                kept = self._count_gaps(day, min_fall)
                self.db.conn.execute("insert into market_gap_days values (?, ?, ?, ?)", [day, min_fall, *kept])
        return kept

    def _kept_gaps(self, day: str, min_fall: float) -> tuple[int, int] | None:
        row = self.db.conn.execute(
            "select gapped, present from market_gap_days where date = ? and min_fall = ?", [day, min_fall]
        ).fetchone()
        return (int(row[0]), int(row[1])) if row else None

    def _count_gaps(self, day: str, min_fall: float) -> tuple[int, int]:
        row = self.db.conn.execute(_OPEN_GAPS_ON, [min_fall, day, day]).fetchone()
        return int(row[0]), int(row[1])

    def open_gaps_by_date(self, min_fall: float) -> dict[str, tuple[int, int]]:
        """open_gaps_on for every day at once, in one read of every bar: for a question about
        the whole market (`data status`), where a probe of every series per day would cost more."""
        rows = self.db.conn.execute(
            "with g as (select date, open, lag(close) over (partition by symbol order by date) as prev "
            "from market_bars) "
            "select date, sum(open <= prev * (1 - ?)), count(*) from g where prev > 0 group by date",
            [min_fall],
        ).fetchall()
        return {day: (gapped, present) for day, gapped, present in rows}

    def close_before(self, symbol: str, day: str) -> tuple[str, float] | None:
        return _newest_close(
            self.db.conn.execute(
                "select date, close from market_bars where symbol = ? and date < ? order by date desc", [symbol, day]
            )
        )

    def last_closes(self, symbols: Sequence[str]) -> dict[str, tuple[str, float]]:
        """symbol → (date, close) of its newest bar, for the symbols that have bars."""
        out = {}
        for symbol in symbols:  # one indexed probe per symbol: O(holdings), not O(bars)
            cursor = self.db.conn.execute(
                "select date, close from market_bars where symbol = ? order by date desc", [symbol]
            )
            if (close := _newest_close(cursor)) is not None:
                out[symbol] = close
        return out

    def actions(self, symbol: str) -> list[CorporateAction]:
        """The stock's stored actions for the market's views: one that is no action is left out."""
        return self.actions_for([symbol], [])[symbol]

    def actions_for(
        self, symbols: Sequence[str], skipped: list[SkippedRow] | None = None
    ) -> dict[str, list[CorporateAction]]:
        """The stocks' stored actions by ex-date. One with a number no action has is refused
        (StoredValueError), or, with `skipped` (a read), left out and added to it."""
        out: dict[str, list[CorporateAction]] = {s: [] for s in symbols}
        if not symbols:
            return out
        marks = ",".join("?" for _ in symbols)
        for r in dict_rows(
            self.db,
            f"select * from corporate_actions where symbol in ({marks}) order by ex_date, source",
            list(symbols),
        ):
            bad = unreadable("corporate_actions", f"{text(r['symbol'])} {text(r['ex_date'])}", r, ACTION_BOUNDS)
            if bad is None:
                out[r["symbol"]].append(_action(r))
            else:
                skip_or_refuse(bad, skipped)
        return out

    def series(self, symbols: Sequence[str] | None = None) -> list[SeriesInfo]:
        """Provenance and extent of every stored series (or of `symbols`, in their order).
        Aggregated in SQL over the (symbol, date) key: one statement per 500 symbols asked
        for, never a read of every series to answer for one."""
        if symbols is None:
            meta = {r[0]: r[1:] for r in self.db.conn.execute(f"select symbol, {_META} from market_series")}
            extent = {r[0]: r[1:] for r in self.db.conn.execute(f"select {_EXTENT} group by symbol")}
            wanted: list[str] = sorted(meta)
        else:
            wanted, meta, extent = list(symbols), {}, {}
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start : start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                sql = f"select symbol, {_META} from market_series where symbol in ({marks})"
                meta.update((r[0], r[1:]) for r in self.db.conn.execute(sql, chunk))
                sql = f"select {_EXTENT} where symbol in ({marks}) group by symbol"
                extent.update((r[0], r[1:]) for r in self.db.conn.execute(sql, chunk))
        return [_series_info(symbol, extent.get(symbol), meta.get(symbol)) for symbol in wanted]

    def trading_days(self, start: str, end: str) -> list[str]:
        return [
            r[0]
            for r in self.db.conn.execute(
                "select date from trading_days where date >= ? and date <= ? order by date", [start, end]
            )
        ]

    def watchlist(self) -> list[tuple[str, str]]:
        return [(r["symbol"], r["added_at"]) for r in dict_rows(self.db, "select * from watchlist order by symbol")]


def _security(r) -> Security:
    return record(Security, r, "securities", kind=text(r["kind"]) or "stock")


class SecurityMaster:
    def __init__(self, db: Database):
        self.db = db

    def version(self) -> int:
        """Bumped by every change to securities or aliases: a name matcher built from them
        stays valid while this number is the same."""
        return self.db.conn.execute("select version from securities_version where id = 1").fetchone()[0]

    def all(self) -> list[Security]:
        return [_security(r) for r in dict_rows(self.db, "select * from securities order by symbol")]

    def get(self, symbol: str) -> Security | None:
        rows = dict_rows(self.db, "select * from securities where symbol = ?", [symbol])
        return _security(rows[0]) if rows else None

    def upsert(self, securities: Iterable[Security], *, keep_names: bool = False) -> int:
        """Insert or update by symbol; keep_names leaves an existing name alone (an import
        naming a stock must not overwrite the exchange's name from a sync)."""
        count = 0
        with write_transaction(self.db):
            for s in securities:
                existing = self.db.conn.execute("select name from securities where symbol = ?", [s.symbol]).fetchone()
                name = existing[0] if (existing and keep_names) else s.name
                self.db.conn.execute(
                    "insert into securities (symbol, name, kind, board, list_date, status, is_st, source, updated_at) "
                    "values (?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict(symbol) do update set "
                    "name = excluded.name, kind = excluded.kind, "
                    "board = coalesce(excluded.board, board), list_date = coalesce(excluded.list_date, list_date), "
                    "status = coalesce(excluded.status, status), is_st = excluded.is_st, "
                    "source = coalesce(excluded.source, source), updated_at = excluded.updated_at",
                    [s.symbol, name, s.kind, s.board, s.list_date, s.status, int(s.is_st), s.source, s.updated_at],
                )
                count += 1
        return count

    def aliases(self) -> list[Alias]:
        return [
            record(Alias, r, "security_aliases")
            for r in dict_rows(self.db, "select * from security_aliases order by alias")
        ]

    def add_alias(self, alias: str, symbol: str, *, source: str = "user", at: str | None = None) -> None:
        with write_transaction(self.db):
            self.db.conn.execute(
                "insert into security_aliases (alias, symbol, source, created_at) values (?, ?, ?, ?) "
                "on conflict(alias) do update set symbol = excluded.symbol, source = excluded.source, "
                "created_at = excluded.created_at",
                [alias, symbol, source, at],
            )

    def remove_alias(self, alias: str) -> bool:
        with write_transaction(self.db):
            cursor = self.db.conn.execute("delete from security_aliases where alias = ?", [alias])
        return cursor.rowcount > 0
