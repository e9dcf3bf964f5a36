"""Switching a SQLite file to WAL, which lets pixiu processes read while another writes.

Which process owns a pending turn, and whether it is still running.

A turn stays 'pending' while its process streams the reply. When a conversation is
reopened (`--continue`, `--resume`, `/resume`), only the pending turns of processes that
are gone were cut off; a turn another pixiu process is still answering must be left alone.
WAL needs every process on the same host, so a process id (with its start time where
/proc has it, against pid reuse) identifies the owner.

A damaged database file, found and named: SQLite's `PRAGMA quick_check` when opening or a
query fails, and a message that names the newest backup to restore. What the user can do
about it (`pixiu restore`, which never opens the damaged file, and `--salvage`) lives in
store/backup.py and store/salvage.py.

A new database file written in one piece from an image of a freshly migrated one.

Migrating an empty file statement by statement costs about 30 ms of CPU (sqlite-utils reads
the schema back after every change); the image is built once per process, in memory, and
each new file after that costs a single write. Creation is atomic: the image goes to a
private file that is then hard-linked into place, so a file that another process created
first is never overwritten.

Opening the one SQLite file: WAL for concurrent readers, a busy timeout so two pixiu
processes wait for each other instead of failing, and pending migrations applied.

A digest of what some tables hold, so a caller can tell that nothing changed since it
last wrote them (the demo skips recomputing its analytics when its data is as it left it)."""

from __future__ import annotations

import errno
import hashlib
import os
import re
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlite_utils import Database

from pixiu_cli.kernel.errors import UserError, os_reason
from pixiu_cli.kernel.store.schema import migrations


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


_PROC = Path("/proc")


def process_start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot; None if it is gone, a zombie,
    or there is no /proc."""
    try:
        stat = (_PROC / str(pid) / "stat").read_text()
    except (OSError, ValueError):
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) ": state is field 3, starttime 22
    if not fields or fields[0] in ("Z", "X"):
        return None
    return fields[19] if len(fields) > 19 else None


def this_process() -> str:
    pid = os.getpid()
    return f"{pid}:{process_start_time(pid) or ''}"


def owned_by_another_live_process(owner: str | None) -> bool:
    """False for no owner (rows from before owners were recorded), for this process (it
    asks only about a turn it has abandoned itself) and for a process that has exited."""
    if not owner or os.name == "nt":  # os.kill(pid, 0) would terminate the process on Windows
        return False
    pid_text, _, started = owner.partition(":")
    try:
        pid = int(pid_text)
    except ValueError:
        return False
    if pid == os.getpid() or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, belongs to someone else
    except OSError:
        return False
    if _PROC.is_dir():
        current = process_start_time(pid)
        return current is not None and (not started or current == started)
    return True


# What SQLite says when the file itself is bad (not when it is busy, full or read-only).
_DAMAGE_WORDS = ("malformed", "not a database", "corrupt", "database disk image")
# The database this process opened last: an unexpected error is checked against it.
_opened: list[Path] = []


class DamagedDatabase(UserError):
    """The database file is damaged; the message names the newest backup to restore."""


def backup_name(stem: str) -> re.Pattern[str]:
    """`<stem>-YYYYmmdd-HHMMSS[-n].db`, the names `pixiu backup` gives (groups: time, n)."""
    return re.compile(rf"{re.escape(stem)}-(\d{{8}}-\d{{6}})(?:-(\d+))?\.db")


def backups_of(path: Path) -> list[Path]:
    """The backups of the database at `path` in PIXIU_HOME/backups, oldest first."""
    pattern, folder = backup_name(path.stem), path.parent / "backups"
    try:
        found = [(m.group(1), int(m.group(2) or 1), p) for p in folder.iterdir() if (m := pattern.fullmatch(p.name))]
    except OSError:
        return []
    return [p for *_, p in sorted(found)]


def quick_check(path: Path) -> str:
    """ "ok", or what is wrong with the file (SQLite's first complaint), read-only."""
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            return str(conn.execute("PRAGMA quick_check").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error as exc:
        return str(exc)


def is_damage(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.DatabaseError) and any(w in str(exc).lower() for w in _DAMAGE_WORDS)


def _newest_intact(path: Path) -> Path | None:
    """The newest backup that passes its own check (an older pixiu could back up a damaged file)."""
    for backup in reversed(backups_of(path)[-5:]):
        if quick_check(backup) == "ok":
            return backup
    return None


def damaged_message(path: Path, reason: str) -> str:
    newest = _newest_intact(path)
    what = f"数据库 {path} 已损坏（{reason[:120]}）"
    if newest is None:
        return (
            f"{what}；没有找到完好的备份：可用 pixiu restore --salvage 抢救能读出的数据（损坏的文件会先移到 backups/）"
        )
    return (
        f"{what}；最新的完好备份是 {newest}：用 pixiu restore {newest} 还原"
        "（损坏的文件会先移到 backups/，不会被打开），或 pixiu restore --salvage 抢救能读出的数据"
    )


def remember_opened(path: Path) -> None:
    """Only the last database opened is judged: a list of every path opened would grow with
    each one (thousands in one test process) and be searched on every open."""
    _opened[:] = [path]


def damaged_line(exc: BaseException) -> str | None:
    """For an error nothing expected (a TypeError from a garbled row, SQLite's "malformed"):
    the damaged-database message when the database this process opened last fails its check."""
    if not _opened or not (is_damage(exc) or isinstance(exc, (TypeError, ValueError, KeyError, sqlite3.Error))):
        return None
    path = _opened[-1]
    if not path.exists():
        return None
    verdict = quick_check(path)
    return None if verdict == "ok" else damaged_message(path, verdict)


_lock = threading.Lock()
_image: bytes | None = None


def _migrated_image() -> bytes:
    global _image
    with _lock:
        if _image is None:
            conn = sqlite3.connect(":memory:")
            try:
                db = Database(conn, execute_plugins=False)
                db.execute("PRAGMA foreign_keys = ON")
                migrations.apply(db)
                _image = conn.serialize()
            finally:
                conn.close()
        return _image


def create_migrated(path: Path) -> bool:
    """Write a new, fully migrated database at `path` (mode 0600) if nothing is there yet.
    False when a file exists or the file system cannot link: the caller then opens and
    migrates as usual."""
    if path.exists():
        return False
    image = _migrated_image()
    private = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.new")
    try:
        fd = os.open(private, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, image)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.link(private, path)  # fails if a file appeared meanwhile: that one is kept
        return True
    except OSError:
        return False
    finally:
        try:
            os.unlink(private)
        except OSError:
            pass


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


# What the demo's refresh reads or writes: the document's tables, the analytics it computes
# and their inputs (bars, alert rules, notes and trades made in conversation), and the
# version counters. A note's inject_count is left out: every turn that shows a note bumps
# it, and it is neither an input nor an output of the refresh.
DEMO_CONTENT = (
    ("holdings", "*", "1"),
    ("profiles", "*", "1"),
    ("news", "*", "1"),
    ("signals", "*", "1"),
    ("reports", "*", "1"),
    ("decisions", "*", "1"),
    ("alerts", "*", "1"),
    ("persona", "*", "1"),
    (
        "memory_events",
        "id, kind, note_kind, symbol, text, created_at, source, author, deleted_at, decision_id",
        "kind = 'user_note'",
    ),
    ("alert_rules", "*", "1"),
    ("backtests", "*", "1"),
    ("securities", "*", "1"),
    ("security_aliases", "*", "1"),
    ("market_series", "*", "1"),
    ("corporate_actions", "*", "1"),
    ("market_version", "*", "1"),
    ("securities_version", "*", "1"),
)


def content_digest(db: Database, content: tuple[tuple[str, str, str], ...] = DEMO_CONTENT) -> str:
    """sha256 over the rows of each (table, columns, where) in rowid order."""
    digest = hashlib.sha256()
    for table, columns, where in content:
        digest.update(f"{table}|{columns}|{where}\n".encode())
        for row in db.conn.execute(f"select {columns} from [{table}] where {where} order by rowid"):
            digest.update(repr(row).encode())
    return digest.hexdigest()
