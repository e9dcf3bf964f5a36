"""A damaged database file, found and named: SQLite's `PRAGMA quick_check` when opening or a
query fails, and a message that names the newest backup to restore. What the user can do
about it (`pixiu restore`, which never opens the damaged file, and `--salvage`) lives in
store/backup.py and store/salvage.py."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from pixiu_cli.kernel.errors import UserError

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
