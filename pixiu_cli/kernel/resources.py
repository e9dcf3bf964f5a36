"""Locate the bundled `prompts/` and `data/` folders, and the pixiu home.

In a wheel they are copied into `pixiu_cli/_bundled/`; in a source checkout or an
editable install they sit at the repository top level, next to the package.

Importing a third-party package without some module it would pull in and pixiu never uses.

A library may import an optional extra at import time that pixiu never uses (sqlite-utils:
numpy and pandas, to map their value types). Each
such module not yet imported is made unimportable while the library is imported, so the
library takes the path it takes where the extra is not installed, and is then put back.

A library may also import, at its top, a module it uses only inside functions pixiu does not
call (sqlite-utils: click for its progress bars, dateutil's parser for its date recipes), or
one that only serves a feature pixiu turns off (sqlite-utils' plugin manager, which imports
pluggy and click; pixiu opens every Database with `execute_plugins=False`). Such a module is
given a stand-in while the library is imported: a `Deferred` one imports the real module on
first use and forwards to it, so it costs nothing until then and works as usual after.
Either stand-in is in sys.modules during that import only, so any later import of the name
gets the real module.

And a library may compile, at its top, a regular expression it uses only in a function
pixiu seldom calls (sqlite-utils: one for `CREATE VIRTUAL TABLE … USING`, whose
case-insensitive `-￿` classes take ~10 ms of CPU to compile). The patterns its own
modules compile while it is imported can be `LazyPattern`s, compiled on first use."""

from __future__ import annotations

import importlib
import os
import re
import sys
import threading
from collections.abc import Iterable, Mapping
from contextlib import contextmanager, nullcontext
from functools import cache
from pathlib import Path
from types import ModuleType

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


class Deferred(ModuleType):
    """A stand-in for the module `name`: the real one is imported on the first attribute
    the stand-in lacks, and the attribute read from it."""

    def __getattr__(self, attr: str):
        if attr.startswith("__"):  # what the import system probes (__spec__, __path__): absent
            raise AttributeError(attr)
        if sys.modules.get(self.__name__) is self:  # used while it still stands in
            del sys.modules[self.__name__]
        return getattr(importlib.import_module(self.__name__), attr)


class LazyPattern:
    """`re.compile(pattern, flags)`, compiled when first used."""

    def __init__(self, pattern, flags: int = 0):
        self._source, self._compiled = (pattern, flags), None

    def __getattr__(self, attr: str):  # .match, .split, .pattern…: the compiled pattern's
        if self._compiled is None:
            self._compiled = _compile(*self._source)
        return getattr(self._compiled, attr)


_compile = re.compile


@contextmanager
def _lazy_patterns(package: str):
    """While it lasts, `re.compile` called from a module of `package` gives a LazyPattern."""

    def compile_for(pattern, flags=0):
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if caller == package or caller.startswith(package + "."):
            return LazyPattern(pattern, flags)
        return _compile(pattern, flags)

    re.compile = compile_for
    try:
        yield
    finally:
        re.compile = _compile


def import_hiding(
    module: str, hidden: Iterable[str], stand_ins: Mapping[str, ModuleType] | None = None, lazy_patterns: bool = False
) -> ModuleType:
    """`import module`, with each of `hidden` that is not imported yet unimportable meanwhile,
    each of `stand_ins` (name → module) not imported yet in place of the real one, and (with
    `lazy_patterns`) the patterns its own modules compile meanwhile compiled on first use."""
    if module in sys.modules:
        return sys.modules[module]
    blocked = [name for name in hidden if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # type: ignore[assignment]  # `import name` fails fast
    standing = {name: stand_in for name, stand_in in (stand_ins or {}).items() if name not in sys.modules}
    sys.modules.update(standing)
    try:
        with _lazy_patterns(module) if lazy_patterns else nullcontext():
            return importlib.import_module(module)
    finally:
        for name in blocked:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]
        for name, stand_in in standing.items():
            if sys.modules.get(name) is stand_in:
                del sys.modules[name]
