"""Built name tables kept on disk between processes (`NameSource(cache_dir=…)`).

Building a table normalises every listed name (about 11,000 spellings) and builds the
automaton: most of what a one-shot `pixiu context TEXT` or `pixiu ask` spends on its
question. A table depends only on the names it is given and on the shipped files and code
that turn them into names, so it is stored under a fingerprint of all of them and reused
while none changes. Anything unreadable is rebuilt; a home that cannot be written to only
loses the speed-up.

Loading a stored table (about 1 MB of pickle) is most of what a REPL's first question would
still pay for it, so the REPL's warm-up loads the most recently used one (`preload`) while
the user types; the turn takes it if its key is that one's."""

from __future__ import annotations

import hashlib
import os
import pickle
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from pixiu_cli.kernel.resources import keep_derived

FORMAT = 6  # bump when what is pickled changes shape or what the forms are
KEPT = 4  # tables kept (the real home's and the demo's, a change or two in between)
_PREFIX, _SUFFIX = "names-", ".pickle"

# The one table `preload` read ahead, by its path, until `cached` takes it or finds another
# key (then it is dropped: a guess never holds a second table in memory). The lock makes a
# turn that asks while the warm-up is reading wait for that read rather than repeat it.
_preloaded: dict[Path, object] = {}
_preload_lock = threading.Lock()
_asked = False  # a table was asked for: too late to guess one


def fingerprint(inputs: object, files: Iterable[Path]) -> str:
    """A digest of `inputs` (their repr: plain dataclasses, tuples and strings) and of each
    file's size and modification time."""
    digest = hashlib.sha256(repr((FORMAT, inputs)).encode("utf-8", "surrogatepass"))
    for path in files:
        try:
            stat = path.stat()
        except OSError:
            digest.update(f"{path}:missing".encode())
            continue
        digest.update(f"{path}:{stat.st_size}:{stat.st_mtime_ns}".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:32]


def cached(directory: Path, key: str, build: Callable[[], object]) -> object:
    """The object stored under `key`, else `build()`, stored for the next process."""
    global _asked
    path = directory / f"{_PREFIX}{key}{_SUFFIX}"
    with _preload_lock:
        _asked = True
        ahead = _preloaded.pop(path, None)
        _preloaded.clear()
    if ahead is not None:
        return ahead
    try:
        if _own(directory) and _own(path):
            table = _load(path)
            _used(path)
            return table
    except Exception:  # missing, truncated, from an incompatible library: built again
        pass
    built = build()
    try:
        blob = pickle.dumps(built, protocol=pickle.HIGHEST_PROTOCOL)
    except pickle.PicklingError:
        return built
    if keep_derived(path, blob):  # refused (a read-only or full disk): still used in this process
        _prune(directory)
    return built


def preload(directory: Path) -> None:
    """Read the most recently used table now (the REPL's warm-up), for `cached` to take."""
    with _preload_lock:
        if _asked:
            return
        try:
            stored = sorted(directory.glob(f"{_PREFIX}*{_SUFFIX}"), key=_mtime, reverse=True)
            if stored and _own(directory) and _own(stored[0]):
                _preloaded.clear()
                _preloaded[stored[0]] = _load(stored[0])
        except Exception:  # unreadable: the turn builds or loads its table as without it
            _preloaded.clear()


def _load(path: Path) -> object:
    # from the file, a frame at a time: the whole file's bytes never sit beside the table
    with path.open("rb") as handle:
        return pickle.load(handle)


def _used(path: Path) -> None:
    """Mark a loaded table as the newest: `preload` guesses by it, `_prune` keeps by it."""
    try:
        os.utime(path)
    except OSError:
        pass


def _own(path: Path) -> bool:
    """Loading a pickle runs what it says: only a file (and folder) this user owns and no one
    else may write is read. A home in a shared folder (PIXIU_HOME=/tmp/…) then cannot be
    handed a table by another user."""
    stat = path.stat()
    owner = os.getuid() if hasattr(os, "getuid") else stat.st_uid
    return stat.st_uid == owner and not stat.st_mode & 0o022


def _prune(directory: Path) -> None:
    stored = sorted(directory.glob(f"{_PREFIX}*{_SUFFIX}"), key=_mtime, reverse=True)
    for old in stored[KEPT:]:
        old.unlink(missing_ok=True)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
