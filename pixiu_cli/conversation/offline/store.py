"""The offline server's simulated prompt cache on disk: one small SQLite file of
(owner, unit hash, last use) rows, so the cache outlives the process as a provider's does.

It is disposable: a file that is not a database is replaced by an empty one, and a file
that stays locked or cannot be written costs cache hits, never a reply. WAL and a busy
timeout let several pixiu processes read and write it at once; every write is one short
transaction, so a process killed mid-write leaves the file consistent."""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

from pixiu_cli.kernel.store.database import disk_full, enable_wal, no_room, owner_only, read_only_line

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 15_000
SCHEMA_VERSION = 2
_LOOKUP_CHUNK = 500  # SQLite's variable limit is 999 on old builds

_SCHEMA = (
    "DROP TABLE IF EXISTS units",
    "CREATE TABLE units (owner INTEGER NOT NULL, hash INTEGER NOT NULL, last_used REAL NOT NULL,"
    " PRIMARY KEY (owner, hash)) WITHOUT ROWID",
    "CREATE INDEX units_by_last_used ON units (last_used)",
    f"PRAGMA user_version = {SCHEMA_VERSION}",
)


def _version(conn: sqlite3.Connection) -> int:
    return conn.execute("PRAGMA user_version").fetchone()[0]


def _connect(path: Path | str, busy_timeout_ms: int) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), timeout=busy_timeout_ms / 1000, check_same_thread=False, isolation_level=None)
    try:
        conn.execute(f"PRAGMA busy_timeout = {busy_timeout_ms}")
        enable_wal(conn, busy_timeout_ms)
        conn.execute("PRAGMA synchronous = NORMAL")
        if _version(conn) != SCHEMA_VERSION:
            with _Transaction(conn):
                if _version(conn) != SCHEMA_VERSION:  # another process may have won the race
                    for statement in _SCHEMA:
                        conn.execute(statement)
    except BaseException:
        conn.close()
        raise
    return conn


class PrefixUnitFile:
    """Unit hashes and their last use, per owner (an opaque number, never an API key).

    A failing read is a miss and a failing write is skipped (logged): a cache problem may
    cost hits, never a reply."""

    def __init__(self, path: Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> None:
        self.path = path
        self._busy_timeout_ms = busy_timeout_ms
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            owner_only(path)  # 0600, as pixiu.db: it holds the prompts' texts' hashes and times
            self._conn = self._open(path)
        except (sqlite3.OperationalError, OSError) as exc:
            # Locked past the timeout, or not writable: this process keeps its own cache. A
            # home that cannot be written (read-only, full) is said once, by what needs to
            # write there; the offline server's own hit counts are no reason for a line.
            quiet = isinstance(exc, OSError) or not os.access(path.parent, os.W_OK) or no_room(path.parent)
            (log.debug if quiet else log.warning)("offline prompt cache %s unavailable (%s); using memory", path, exc)
            self._conn = self._open(":memory:")
        except sqlite3.DatabaseError:
            # Not a database (or damaged): it is only a cache, start over.
            log.warning("offline prompt cache %s is unreadable; starting an empty one", path)
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
            self._conn = self._open(path)

    def _open(self, path: Path | str) -> sqlite3.Connection:
        return _connect(path, self._busy_timeout_ms)

    def last_used(self, owner: int, hashes: Sequence[int]) -> dict[int, float]:
        found: dict[int, float] = {}
        try:
            for start in range(0, len(hashes), _LOOKUP_CHUNK):
                chunk = list(hashes[start : start + _LOOKUP_CHUNK])
                marks = ",".join("?" * len(chunk))
                rows = self._conn.execute(
                    f"SELECT hash, last_used FROM units WHERE owner = ? AND hash IN ({marks})", [owner, *chunk]
                )
                found.update(rows.fetchall())
        except sqlite3.Error as exc:
            log.warning("offline prompt cache read failed (%s): counted as a miss", exc)
            return {}
        return found

    def touch(self, owner: int, hashes: Sequence[int], now: float) -> None:
        if not hashes:
            return
        self._write(
            lambda conn: conn.executemany(
                "INSERT INTO units (owner, hash, last_used) VALUES (?, ?, ?) "
                "ON CONFLICT (owner, hash) DO UPDATE SET last_used = max(last_used, excluded.last_used)",
                [(owner, h, now) for h in hashes],
            )
        )

    def purge(self, *, older_than: float | None, keep_at_most: int | None) -> None:
        """Drop units last used before ``older_than``, then the least recently used beyond
        ``keep_at_most`` (over all owners: the bound is on the file)."""

        def purge(conn: sqlite3.Connection) -> None:
            if older_than is not None:
                conn.execute("DELETE FROM units WHERE last_used < ?", [older_than])
            if keep_at_most is not None:
                excess = conn.execute("SELECT count(*) FROM units").fetchone()[0] - keep_at_most
                if excess > 0:
                    conn.execute(
                        "DELETE FROM units WHERE (owner, hash) IN "
                        "(SELECT owner, hash FROM units ORDER BY last_used LIMIT ?)",
                        [excess],
                    )

        self._write(purge)

    def clear(self) -> None:
        self._write(lambda conn: conn.execute("DELETE FROM units"))

    def count(self, owner: int | None = None) -> int:
        if owner is None:
            return self._conn.execute("SELECT count(*) FROM units").fetchone()[0]
        return self._conn.execute("SELECT count(*) FROM units WHERE owner = ?", [owner]).fetchone()[0]

    def close(self) -> None:
        self._conn.close()

    def _write(self, action: Callable[[sqlite3.Connection], object]) -> None:
        try:
            with _Transaction(self._conn):
                action(self._conn)
        except sqlite3.Error as exc:  # still locked after the timeout, disk full, ...
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            # a full or read-only disk is said by the write that matters (the turn's)
            quiet = disk_full(exc, self.path.parent) or bool(read_only_line(exc))
            (log.debug if quiet else log.warning)("offline prompt cache write skipped (%s)", exc)


class _Transaction:
    """BEGIN IMMEDIATE: take the write lock up front so a second process waits on the busy
    timeout instead of failing a read-to-write upgrade."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def __enter__(self) -> None:
        self._conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self._conn.execute("COMMIT")
        elif self._conn.in_transaction:
            self._conn.execute("ROLLBACK")
