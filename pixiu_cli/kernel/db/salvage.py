"""Salvage, in the spirit of sqlite3's `.recover`: every row that can still be read from a
damaged database file, copied into a fresh database of the current schema. Rows are read by
rowid in chunks; a chunk SQLite cannot read is retried row by row, so one bad page costs
only the rows on it."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from sqlite_utils import Database

from pixiu_cli.kernel.db.database import write_transaction

_CHUNK = 256
_GIVE_UP_AFTER = 64  # chunks in a row past the last readable rowid with nothing in them


@dataclass
class Salvaged:
    rows: dict[str, int] = field(default_factory=dict)  # table → rows copied
    unreadable: list[str] = field(default_factory=list)  # tables nothing could be read from

    @property
    def total(self) -> int:
        return sum(self.rows.values())


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]


def _rows(src: sqlite3.Connection, table: str, cols: str, start: int, stop: int) -> list[tuple]:
    query = f'select rowid, {cols} from "{table}" where rowid > ? and rowid <= ? order by rowid'
    try:
        return src.execute(query, [start, stop]).fetchall()
    except sqlite3.DatabaseError:
        found = []
        for rowid in range(start + 1, stop + 1):
            try:
                found += src.execute(query, [rowid - 1, rowid]).fetchall()
            except sqlite3.DatabaseError:
                continue
        return found


def _last_rowid(src: sqlite3.Connection, table: str) -> int | None:
    try:
        return src.execute(f'select max(rowid) from "{table}"').fetchone()[0] or 0
    except sqlite3.DatabaseError:
        return None


def _copy_table(src: sqlite3.Connection, db: Database, table: str) -> int:
    try:
        names = [c for c in _columns(src, table) if c in set(_columns(db.conn, table))]
    except sqlite3.DatabaseError:
        return -1
    if not names:
        return -1
    cols = ", ".join(f'"{c}"' for c in names)
    insert = f'insert or replace into "{table}" (rowid, {cols}) values ({", ".join("?" * (len(names) + 1))})'
    last, copied, empty = _last_rowid(src, table), 0, 0
    start = 0
    while (last is None and empty < _GIVE_UP_AFTER) or (last is not None and start < last):
        rows = _rows(src, table, cols, start, start + _CHUNK)
        empty = 0 if rows else empty + 1
        if rows:
            db.conn.executemany(insert, rows)
            copied += len(rows)
        start += _CHUNK
    return copied


# Counts kept of the bars as they were: bars on a lost page would leave them wrong; they are
# counted again from the bars that were saved when first asked.
_COUNTED_FROM_BARS = frozenset({"market_gap_days"})


def salvage(damaged: Path, db: Database) -> Salvaged:
    """Copy what can be read of `damaged` (opened read-only) into `db`, one transaction."""
    result = Salvaged()
    src = sqlite3.connect(f"{damaged.resolve().as_uri()}?mode=ro", uri=True)
    try:
        tables = [
            r[0]
            for r in db.conn.execute("select name from sqlite_master where type = 'table' order by name")
            if not r[0].startswith(("sqlite_", "_sqlite")) and r[0] not in _COUNTED_FROM_BARS
        ]
        # a row whose parent was on a lost page is still worth keeping: no foreign keys here
        db.conn.execute("PRAGMA foreign_keys = OFF")
        with write_transaction(db):
            for table in tables:
                copied = _copy_table(src, db, table)
                if copied < 0:
                    result.unreadable.append(table)
                elif copied:
                    result.rows[table] = copied
    finally:
        src.close()
        db.conn.execute("PRAGMA foreign_keys = ON")
    return result
