"""Locate the bundled `prompts/` and `data/` folders, and the pixiu home.

In a wheel they are copied into `pixiu_cli/_bundled/`; in a source checkout or an
editable install they sit at the repository top level, next to the package.
"""

from __future__ import annotations

import os
import threading
from functools import cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent.parent


@cache
def resource_dir(name: str) -> Path:
    for candidate in (_PACKAGE_DIR / "_bundled" / name, _PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"pixiu resource folder '{name}' is missing from the installation")


def prompts_dir() -> Path:
    return resource_dir("prompts")


def data_dir() -> Path:
    return resource_dir("data")


def read_prompt(relative: str) -> str:
    return (prompts_dir() / relative).read_text(encoding="utf-8")


def default_home() -> Path:
    """The pixiu home (database, input history, config): PIXIU_HOME, else ~/.pixiu."""
    env = os.environ.get("PIXIU_HOME")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".pixiu"


def user_cache_dir() -> Path:
    """Where derived files live (the tokenizer's tables, built name tables): files any home
    may share, since each is keyed by what it was built from. $XDG_CACHE_HOME/pixiu, else
    ~/.cache/pixiu."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "pixiu"


def write_private(path: Path, data: bytes, *, durable: bool = False) -> None:
    """Write `data` to `path` readable by its owner only (0600), whole or not at all: a file
    pixiu writes (a cache of block lines, an export) holds holdings and notes verbatim. A
    full disk leaves nothing behind, not even an empty file. `durable`: on disk before the
    name appears (what the user keeps: an export, a question that could not be stored)."""
    # the thread too: the REPL's warm-up thread and a turn may write the same cache file
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            if durable:
                f.flush()
                os.fsync(f.fileno())  # a full disk may only say so here (delayed allocation)
        os.chmod(tmp, 0o600)  # O_CREAT keeps the mode of a leftover file
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def keep_derived(path: Path, data: bytes) -> bool:
    """Keep a derived file (under `user_cache_dir()`) for the next process, in a folder only
    its owner may enter. False when the disk refuses (read-only, full, a file in the way):
    only the speed-up is lost, the caller has what it built."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        write_private(path, data)
    except OSError:
        return False
    return True
