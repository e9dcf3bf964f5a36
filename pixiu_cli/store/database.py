"""Opening the one SQLite file: WAL for concurrent readers, a busy timeout so two pixiu
processes wait for each other instead of failing, and pending migrations applied."""

from __future__ import annotations

import errno
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlite_utils import Database

from pixiu_cli.errors import UserError
from pixiu_cli.store.schema import migrations
from pixiu_cli.store.template import create_migrated
from pixiu_cli.store.wal import enable_wal

BUSY_TIMEOUT_MS = 15_000


class StoreError(UserError):
    """The database cannot be used; the message is one line for the user."""


def lock_timeout_line(exc: BaseException) -> str | None:
    """The one line to show when `exc` is SQLite giving up on the busy timeout (another
    process held the write lock all that time), else None."""
    if isinstance(exc, sqlite3.OperationalError) and any(w in str(exc) for w in ("locked", "busy")):
        return (
            f"数据库正被另一个 pixiu 进程占用（已等待 {BUSY_TIMEOUT_MS // 1000} 秒）：本次操作没有完成；"
            "之前保存的内容不受影响，请稍后重试。"
        )
    return None


DISK_FULL = "磁盘已满：这次的内容未能写入，之前保存的对话和数据都完好，没有丢失。请释放磁盘空间后重试。"


def disk_full(exc: BaseException) -> bool:
    """SQLite's SQLITE_FULL ("database or disk is full") or an OS write that found no space."""
    if isinstance(exc, sqlite3.OperationalError):
        code = getattr(exc, "sqlite_errorcode", None)
        return code == sqlite3.SQLITE_FULL if code is not None else "database or disk is full" in str(exc)
    return isinstance(exc, OSError) and exc.errno == errno.ENOSPC


def _apply_migrations(db: Database) -> None:
    # Two processes may open a fresh file at once; the loser of the race sees the
    # winner's tables ("already exists") and simply re-reads what is pending.
    for attempt in range(5):
        if not migrations.pending(db):
            return
        try:
            migrations.apply(db)
            return
        except sqlite3.OperationalError:
            if attempt == 4:
                raise
            time.sleep(0.05 * (attempt + 1))


def _owner_only(path: Path) -> None:
    """The database holds every conversation: create it 0600 (SQLite gives its -wal and -shm
    files the database file's mode) and tighten one left looser by an older version."""
    for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            if file == path and not file.exists():
                os.close(os.open(file, os.O_WRONLY | os.O_CREAT, 0o600))
            if file.exists() and file.stat().st_mode & 0o077:
                os.chmod(file, 0o600)
        except OSError:
            pass  # not ours to change (read-only, another owner): SQLite will say if it matters


def open_database(path: Path, *, migrate: bool = True) -> Database:
    path.parent.mkdir(parents=True, exist_ok=True)
    if migrate:
        create_migrated(path)
    _owner_only(path)
    try:
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
        conn.isolation_level = None  # autocommit; every write goes through write_transaction()
        # No sqlite-utils plugins: loading them scans every installed distribution's entry
        # points (importlib.metadata) at start-up, and pixiu registers none.
        db = Database(conn, execute_plugins=False)
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        enable_wal(conn, BUSY_TIMEOUT_MS)
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute("PRAGMA foreign_keys = ON")
        if migrate:
            _apply_migrations(db)
    except sqlite3.DatabaseError as exc:
        if disk_full(exc):
            raise StoreError(DISK_FULL) from None
        raise StoreError(f"无法打开数据库 {path}：{exc}") from None
    return db


class CommitRefused(Exception):
    """The thread's commit gate said no (its work was abandoned): nothing was written."""


_gates = threading.local()


@contextmanager
def commit_gate(gate) -> Iterator[None]:
    """Every outermost write transaction of this thread asks `gate.may_begin()` before it
    begins and `gate.may_commit()` before it commits, and calls `gate.committed(ok)` after: a thread whose
    caller stopped waiting for it either finishes a commit it had started or writes
    nothing (see agent/guardrails.py)."""
    _gates.gate = gate
    try:
        yield
    finally:
        _gates.gate = None


def _may_begin() -> bool:
    gate = getattr(_gates, "gate", None)
    return gate is None or gate.may_begin()


def _may_commit() -> bool:
    gate = getattr(_gates, "gate", None)
    return gate is None or gate.may_commit()


def _committed(ok: bool) -> None:
    gate = getattr(_gates, "gate", None)
    if gate is not None:
        gate.committed(ok)


@contextmanager
def write_transaction(db: Database) -> Iterator[Database]:
    """BEGIN IMMEDIATE takes the write lock up front, so a second pixiu process waits on the
    busy timeout instead of failing a read-then-write upgrade with "database is locked"."""
    if db.conn.in_transaction:
        with db.atomic():
            yield db
        return
    # BEGIN inside the try: a Ctrl-C (KeyboardInterrupt) that lands just after BEGIN
    # returns must not leave the connection in an open transaction, or every later write
    # of this process would nest in it, hold the write lock and never be committed.
    if not _may_begin():
        raise CommitRefused()
    try:
        db.conn.execute("BEGIN IMMEDIATE")
        yield db
        if not _may_commit():
            raise CommitRefused()
        ok = False
        try:
            db.conn.execute("COMMIT")
            ok = True
        finally:
            _committed(ok)
    except BaseException as exc:
        if db.conn.in_transaction:
            db.conn.rollback()
        if disk_full(exc):  # the transaction is rolled back whole: what was saved before stays
            raise StoreError(DISK_FULL) from None
        raise
