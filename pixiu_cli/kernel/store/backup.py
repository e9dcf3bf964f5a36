"""Backups of the database and restoring one, through SQLite's online backup API: pages are
copied under SQLite's own locks, so a backup taken while another pixiu process writes is
consistent and a restore goes through the WAL like any other write (a file copy would do
neither).

Salvage, in the spirit of sqlite3's `.recover`: every row that can still be read from a
damaged database file, copied into a fresh database of the current schema. Rows are read by
rowid in chunks; a chunk SQLite cannot read is retried row by row, so one bad page costs
only the rows on it."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from sqlite_utils import Database

from pixiu_cli.kernel.clock import machine_seconds
from pixiu_cli.kernel.errors import os_reason
from pixiu_cli.kernel.store.database import (
    DamagedDatabase,
    StoreError,
    backup_name,
    damaged_message,
    disk_full,
    quick_check,
    write_transaction,
)
from pixiu_cli.kernel.store.schema import migrations

# Tables every pixiu database has had since its first migrations.
_REQUIRED_TABLES = {"conversations", "turns", "calls", "holdings", "memory_events", "persona"}


def backup_database(db: Database, directory: Path, at: datetime, stem: str = "pixiu") -> Path:
    """Write a self-contained copy of `db` to `directory/<stem>-YYYYmmdd-HHMMSS.db` (0600).
    A damaged database is refused: its copy would be as damaged, and look like a good backup."""
    verdict = _checked(db)
    if verdict != "ok":
        raise DamagedDatabase(damaged_message(_path_of(db), verdict))
    partial = None
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        target = _unused_name(directory, f"{stem}-{at:%Y%m%d-%H%M%S}")
        partial = target.with_name(target.name + ".partial")
        partial.unlink(missing_ok=True)
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.close(fd)
        copy = sqlite3.connect(str(partial))
        try:
            db.conn.backup(copy)
            # one file, no -wal sidecar: what the user can move or keep is the whole backup
            copy.execute("PRAGMA journal_mode = DELETE")
        finally:
            copy.close()
        partial.rename(target)
    except (OSError, sqlite3.Error) as exc:
        if partial is not None:  # a cut-off copy would only look like a backup
            for leftover in (partial, partial.with_name(partial.name + "-journal")):
                leftover.unlink(missing_ok=True)
        raise StoreError(f"无法写入备份到 {directory}：{_reason(exc, directory)}") from None
    return target


# A backup still being written by another process is younger than this; an older partial
# file is what an interrupted backup left behind.
PARTIAL_AGE_SECONDS = 600


def clean_partials(directory: Path) -> list[Path]:
    """Remove what interrupted backups left (`*.db.partial` and its `-journal`): tens of MB
    each, never of use."""
    removed = []
    cutoff = machine_seconds() - PARTIAL_AGE_SECONDS  # compared with files' mtimes
    for path in sorted(directory.glob("*.db.partial*")):
        try:
            if path.is_file() and not path.is_symlink() and path.stat().st_mtime < cutoff:
                path.unlink()
                removed.append(path)
        except OSError:
            continue  # another process took it, or it is not ours to remove
    return removed


def prune_backups(directory: Path, stem: str, keep: int) -> list[Path]:
    """Remove all but the newest `keep` backups named `<stem>-YYYYmmdd-HHMMSS[-n].db` (0 keeps
    all); other files in the folder (another stem, a copy the user named) are never touched."""
    if keep <= 0:
        return []
    pattern = backup_name(stem)
    dated = []
    for path in directory.iterdir():
        m = pattern.fullmatch(path.name)
        if m and path.is_file() and not path.is_symlink():
            dated.append(((m.group(1), int(m.group(2) or 1)), path))
    old = [path for _, path in sorted(dated)[:-keep]]
    removed = []
    for path in old:
        try:
            path.unlink()
            removed.append(path)
        except OSError:
            continue
    return removed


def _checked(db: Database) -> str:
    try:
        return str(db.execute("PRAGMA quick_check").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        return str(exc)


def _path_of(db: Database) -> Path:
    row = db.execute("PRAGMA database_list").fetchone()
    return Path(row[2]) if row and row[2] else Path("pixiu.db")


def is_damaged(path: Path) -> bool:
    """The file at `path` is there but not a readable database (0 bytes counts as damaged)."""
    try:
        if path.stat().st_size == 0:
            return True
    except OSError:
        return False
    return quick_check(path) != "ok"


def _unused_name(directory: Path, base: str) -> Path:
    """`directory/<base>.db`, or `<base>-2.db`, `-3` … when a copy made in the same second
    is already there."""
    target, n = directory / f"{base}.db", 1
    while target.exists():
        n += 1
        target = directory / f"{base}-{n}.db"
    return target


def set_aside(path: Path, directory: Path, at: datetime) -> Path:
    """Move a damaged database (and its -wal; the -shm is only an index) into `directory` as
    `<stem>-damaged-YYYYmmdd-HHMMSS.db`, without opening it: kept for salvage, out of the way."""
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        target = _unused_name(directory, f"{path.stem}-damaged-{at:%Y%m%d-%H%M%S}")
        os.replace(path, target)
        wal = path.with_name(path.name + "-wal")
        if wal.exists():
            os.replace(wal, target.with_name(target.name + "-wal"))
        path.with_name(path.name + "-shm").unlink(missing_ok=True)
    except OSError as exc:
        raise StoreError(f"无法把损坏的数据库移到 {directory}：{_reason(exc, directory)}") from None
    return target


def _reason(exc: Exception, folder: Path | None = None) -> str:
    if disk_full(exc, folder):
        return "磁盘已满（数据库本身完好，没有丢失；请释放磁盘空间后重试）"
    if isinstance(exc, OSError):
        return os_reason(exc)
    return str(exc) or type(exc).__name__


def check_pixiu_database(path: Path) -> None:
    """Raise StoreError unless `path` is an intact SQLite file holding a pixiu database."""
    if not path.is_file():
        raise StoreError(f"找不到备份文件 {path}")
    try:
        with path.open("rb") as f:
            header = f.read(16)
    except OSError as exc:
        raise StoreError(f"无法读取 {path}：{_reason(exc)}") from None
    if header != b"SQLite format 3\x00":
        raise StoreError(f"{path} 不是 SQLite 数据库文件")
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
            tables = {r[0] for r in conn.execute("select name from sqlite_master where type = 'table'")}
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise StoreError(f"{path} 无法作为数据库读取：{exc}") from None
    if verdict != "ok":
        raise StoreError(f"{path} 已损坏（quick_check：{verdict}）")
    missing = _REQUIRED_TABLES - tables
    if missing:
        raise StoreError(f"{path} 不是 pixiu 数据库（缺少表：{', '.join(sorted(missing))}）")


def restore_database(db: Database, source: Path) -> None:
    """Replace the contents of `db` with `source` (checked first), then bring its schema up to
    date: a backup from an older pixiu gets the migrations it lacks."""
    check_pixiu_database(source)
    try:
        before = _versions(db)
        used = _used_ids(db)
        src = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)
        try:
            src.backup(db.conn)
        finally:
            src.close()
        db.execute("PRAGMA journal_mode = WAL")
        migrations.apply(db)
        _move_versions_past(db, before)
        _never_reissue(db, used)
    except sqlite3.Error as exc:
        raise StoreError(f"恢复失败：{exc}") from None


_VERSION_TABLES = ("portfolio_version", "securities_version", "restore_generation")
_MEMORY_TABLES = ("memory_events", "decisions", "alert_rules")  # the ids the user sees: n12, d5, a3


def _used_ids(db: Database) -> dict[str, int]:
    """The largest id each memory table has ever handed out."""
    tables = set(db.table_names())
    sequence = (
        dict(db.execute("select name, seq from sqlite_sequence").fetchall()) if "sqlite_sequence" in tables else {}
    )
    return {
        t: max(sequence.get(t, 0), db.execute(f"select coalesce(max(id), 0) from {t}").fetchone()[0])
        for t in _MEMORY_TABLES
        if t in tables
    }


def _never_reissue(db: Database, used: dict[str, int]) -> None:
    """After a restore, new memories get ids past every id the replaced database used, so
    an id the user was shown before the restore never names another memory."""
    for table, seq in used.items():
        if db.execute("select count(*) from sqlite_sequence where name = ?", [table]).fetchone()[0]:
            db.execute("update sqlite_sequence set seq = max(seq, ?) where name = ?", [seq, table])
        else:
            db.execute("insert into sqlite_sequence (name, seq) values (?, ?)", [table, seq])


def _versions(db: Database) -> dict[str, int]:
    tables = set(db.table_names())
    return {
        t: db.execute(f"select version from {t} where id = 1").fetchone()[0] for t in _VERSION_TABLES if t in tables
    }


def _move_versions_past(db: Database, before: dict[str, int]) -> None:
    """Processes that keep what they read until a version counter moves (the context
    engine's holdings, the name matcher) must see the restored data as new, even when the
    backup's counter happens to equal the one they saw."""
    for table, version in _versions(db).items():
        db.execute(f"update {table} set version = ? where id = 1", [max(version, before.get(table, 0)) + 1])


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
