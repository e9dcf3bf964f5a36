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

from pixiu_cli.kernel.db.damage import (
    DamagedDatabase,
    backups_of,
    damaged_message,
    is_damage,
    quick_check,
    remember_opened,
)
from pixiu_cli.kernel.db.schema import migrations
from pixiu_cli.kernel.db.template import create_migrated
from pixiu_cli.kernel.db.wal import enable_wal
from pixiu_cli.kernel.errors import UserError, os_reason

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


# Less free space than this where a database lives makes an I/O error a full disk: SQLite
# grows its -shm index 32 KiB at a time and its pages a few KiB at a time.
NEARLY_FULL_BYTES = 256 * 1024


def disk_full(exc: BaseException, folder: Path | None = None) -> bool:
    """SQLite's SQLITE_FULL ("database or disk is full") or an OS write that found no space;
    with the database's `folder`, also SQLite's bare "disk I/O error" (what a -shm index that
    cannot grow gives) when that folder's disk has no room left."""
    if isinstance(exc, sqlite3.DatabaseError):
        code = getattr(exc, "sqlite_errorcode", None)
        if code == sqlite3.SQLITE_FULL or (code is None and "database or disk is full" in str(exc)):
            return True
        io_error = code & 0xFF == sqlite3.SQLITE_IOERR if code is not None else "disk I/O error" in str(exc)
        return folder is not None and io_error and no_room(folder)
    return isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)


def no_room(folder: Path) -> bool:
    import shutil

    try:
        return shutil.disk_usage(folder).free < NEARLY_FULL_BYTES
    except OSError:
        return False


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


def owner_only(path: Path) -> None:
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


def database_path(db: Database) -> Path | None:
    """The file `db` is open on; None for an in-memory database."""
    rows = db.conn.execute("pragma database_list").fetchall()
    path = next((r[2] for r in rows if r[1] == "main"), "")
    return Path(path) if path else None


def open_database(path: Path, *, migrate: bool = True) -> Database:
    if path.is_symlink():
        # its permissions would be changed on the target, which may be anywhere: refuse visibly
        raise StoreError(
            f"数据库 {path} 是指向 {os.path.realpath(path)} 的符号链接：pixiu 不打开链接的数据库"
            "（以免改动目标文件的权限）；请把 PIXIU_HOME 设为目标所在目录，或用真实文件替换链接"
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"无法创建数据目录 {path.parent}：{os_reason(exc)}") from None
    _refuse_emptied(path)
    if migrate:
        create_migrated(path)
    owner_only(path)
    try:
        db = _connect(path, migrate)
    except sqlite3.DatabaseError as exc:
        if disk_full(exc, path.parent):
            raise StoreError(DISK_FULL) from None
        if is_damage(exc):
            verdict = quick_check(path)
            raise DamagedDatabase(damaged_message(path, str(exc) if verdict == "ok" else verdict)) from None
        if not (path.is_file() and not os.access(path.parent, os.W_OK)):
            raise StoreError(f"无法打开数据库 {path}：{exc}") from None
        db = _read_only(path)  # a read-only home: what only reads still works
    remember_opened(path)
    return db


def _connect(path: Path, migrate: bool) -> Database:
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
    return db


READ_ONLY = "数据目录是只读的（PIXIU_HOME 不可写）：可以查看和导出，但这个操作需要写入，没有完成"


def read_only_message(folder: Path | None) -> str:
    """READ_ONLY naming the folder, where it is known."""
    if folder is None:
        return READ_ONLY
    return f"数据目录 {folder} 是只读的（PIXIU_HOME 不可写）：可以查看和导出，但这个操作需要写入，没有完成"


def _read_only(path: Path) -> Database:
    """The database of a home nobody can write (a read-only mount): SQLite cannot create the
    WAL index there, so the file is opened immutable; any write fails with READ_ONLY."""
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?immutable=1", uri=True, check_same_thread=False)
        conn.isolation_level = None
        db = Database(conn, execute_plugins=False)
        db.execute("select count(*) from sqlite_master").fetchone()
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"无法打开数据库 {path}：{exc}") from None
    return db


def read_only_line(exc: BaseException) -> str | None:
    """The one line for a write to a database opened read-only."""
    if isinstance(exc, sqlite3.OperationalError) and "readonly" in str(exc):
        return READ_ONLY
    return None


def _refuse_emptied(path: Path) -> None:
    """SQLite takes a 0-byte file for a new, empty database: with backups about, a file that
    was emptied (a failed copy, a full disk) would silently look like all data gone."""
    try:
        emptied = path.stat().st_size == 0  # pixiu writes the header at the first open
    except OSError:
        return
    if emptied and backups_of(path):
        raise DamagedDatabase(damaged_message(path, "文件为 0 字节"))


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


def current_gate():
    """The commit gate this thread's writes ask (commit_gate), or None outside one."""
    return getattr(_gates, "gate", None)


def _may_begin() -> bool:
    gate = current_gate()
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
        if disk_full(exc, _folder_of(db)):  # the transaction is rolled back whole: what was saved before stays
            raise StoreError(DISK_FULL) from None
        if read_only_line(exc):
            raise StoreError(read_only_message(_folder_of(db))) from None
        raise


def _folder_of(db: Database) -> Path | None:
    """The folder of `db`'s file (None for a database in memory or one that cannot say)."""
    try:
        row = db.conn.execute("PRAGMA database_list").fetchone()
    except sqlite3.Error:
        return None
    return Path(row[2]).parent if row and row[2] else None
