"""A question (`pixiu ask`, a REPL turn: services/ask.py) is written to PIXIU_HOME/unsent/
before anything can wait on the database's write lock, and removed once the turn is over:
when another pixiu process holds the lock past the busy timeout, the question is still on
disk, and the one-line error says where."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path


def keep(home: Path, text: str, now: datetime) -> Path:
    """The question in unsent/, whole or not at all: a full disk leaves no empty or cut-off
    file that would look like a kept question."""
    from pixiu_cli.kernel.resources import write_private

    folder = home / "unsent"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = folder / f"{now.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.txt"
    write_private(path, text.encode("utf-8", "replace"), durable=True)
    return path


def sent(path: Path | None) -> None:
    if path is not None:
        path.unlink(missing_ok=True)


def not_stored(exc: BaseException) -> bool:
    """The turn failed because it could not be written (the lock held past the busy timeout,
    a full disk, a restore by another process): the question is worth keeping."""
    from pixiu_cli.conversation.store import RestoredElsewhere
    from pixiu_cli.kernel.db.database import DISK_FULL, disk_full, lock_timeout_line

    return (
        bool(lock_timeout_line(exc))
        or disk_full(exc)
        or str(exc) == DISK_FULL  # write_transaction's StoreError for a full disk
        or isinstance(exc, RestoredElsewhere)
    )
