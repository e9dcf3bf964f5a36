"""A question `pixiu ask` was given is written to PIXIU_HOME/unsent/ before anything can wait
on the database's write lock, and removed once the turn is over: when another pixiu process
holds the lock past the busy timeout, the question is still on disk, and the one-line error
says where."""

from __future__ import annotations

import os
import time
from pathlib import Path


def keep(home: Path, text: str) -> Path:
    folder = home / "unsent"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = folder / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.txt"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(text)
    return path


def sent(path: Path) -> None:
    path.unlink(missing_ok=True)
