"""Switching a SQLite file to WAL, which lets pixiu processes read while another writes."""

from __future__ import annotations

import sqlite3
import time


def enable_wal(conn: sqlite3.Connection, timeout_ms: int) -> None:
    """`PRAGMA journal_mode = WAL`, retried until `timeout_ms`: when two processes open a
    brand-new file at once, the one that did not switch it may get SQLITE_BUSY straight
    away (SQLite's busy handler does not wait on this step), about one start in seven."""
    deadline = time.monotonic() + timeout_ms / 1000
    pause = 0.002
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            busy = "locked" in str(exc) or "busy" in str(exc)
            if not busy or time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.1)
