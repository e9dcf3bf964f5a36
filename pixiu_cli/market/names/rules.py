"""The selection's word lists and cue tables, read from ``data/selection/rules/``.

They are data, not code: a typo, a shadow word or a cue is added by editing a file, and
the code that applies them stays the same. Each file is read once, on first use.

* ``*.txt`` — one entry a line; ``#`` starts a comment line; blank lines are skipped.
* ``*.tsv`` — tab-separated rows, the same comments.
* ``*.toml`` — tables of patterns. A pattern may name a fragment of its file's
  ``[fragments]`` table as ``{NAME}`` (upper case, so it never reads as a regex repeat
  such as ``{0,4}``); fragments may name earlier fragments. A long pattern may be written
  as a list of parts, read as one string (`joined`).

Compiled patterns (`compiled`) are kept between processes. Compiling the ~190 cue and
mention patterns (long alternations of Chinese words) is most of what a one-shot `pixiu
context TEXT` spends on its rules. What `re` compiles a pattern to is a list of opcodes
that depends only on the pattern, its flags and the interpreter, so it is kept in the user
cache under the interpreter's version and the engine's magic number, and handed back to
the engine as it was; a pattern not kept yet is compiled and kept when the process ends.
The result is the same `re.Pattern` (`==` compares the opcodes). Anything unreadable,
another Python, or an `re` without these internals: compiled as usual."""

from __future__ import annotations

import atexit
import marshal
import re
import sys
import tomllib
from functools import cache
from pathlib import Path

from pixiu_cli.kernel.resources import data_dir, keep_derived, user_cache_dir

_FRAGMENT = re.compile(r"\{([A-Z][A-Z_]*)\}")


def _path(filename: str) -> Path:
    return data_dir() / "selection" / "rules" / filename


def _lines(filename: str) -> list[str]:
    lines = _path(filename).read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.strip() and not line.lstrip().startswith("#")]


@cache
def words(filename: str) -> tuple[str, ...]:
    """The entries of a ``.txt`` list, in file order."""
    return tuple(line.strip() for line in _lines(filename))


@cache
def pairs(filename: str) -> tuple[tuple[str, str], ...]:
    """The (first, second) columns of a two-column ``.tsv``, in file order."""
    rows = []
    for line in _lines(filename):
        first, second = line.split("\t")[:2]
        rows.append((first.strip(), second.strip()))
    return tuple(rows)


@cache
def table(filename: str) -> dict:
    """A ``.toml`` file with its ``{FRAGMENT}`` references expanded in every string."""
    data = tomllib.loads(_path(filename).read_text(encoding="utf-8"))
    fragments: dict[str, str] = {}
    for name, value in data.get("fragments", {}).items():
        fragments[name] = expand(joined(value), fragments)
    return _expand_all(data, fragments)


@cache
def vocabulary() -> tuple[str, ...]:
    """The words whose pinyin typos are fixed and which the segmenter keeps whole:
    ``vocabulary`` of ``words.toml``, then the ``vocabulary`` of each file its
    ``vocabulary_from`` names (the memory classes' words, in ``targets.toml``)."""
    data = table("words.toml")
    found = list(data["vocabulary"])
    for filename in data.get("vocabulary_from", []):
        found.extend(w for w in table(filename)["vocabulary"] if w not in found)
    return tuple(found)


def joined(value: str | list[str]) -> str:
    """A pattern written whole or in parts."""
    return value if isinstance(value, str) else "".join(value)


def expand(pattern: str, fragments: dict[str, str]) -> str:
    def fragment(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in fragments:
            raise KeyError(f"selection rules: unknown fragment {{{name}}} in {pattern!r}")
        return fragments[name]

    return _FRAGMENT.sub(fragment, pattern)


def _expand_all(value, fragments: dict[str, str]):
    if isinstance(value, str):
        return expand(value, fragments)
    if isinstance(value, list):
        return [_expand_all(v, fragments) for v in value]
    if isinstance(value, dict):
        return {k: _expand_all(v, fragments) for k, v in value.items()}
    return value


# -- compiled patterns ------------------------------------------------------------------


PATTERNS_FORMAT = 2  # bump when what is kept changes shape
KEPT = 1000  # past this many patterns (rule files edited often), only those of this process stay
# (flags, opcodes as 32-bit words, groups, groupindex, indexgroup): the opcodes as one bytes
# object, not a list of ints (~2 MiB as objects for the ~190 patterns, a quarter of that so)
Entry = tuple[int, bytes, int, dict[str, int], tuple[str | None, ...]]

_stored: dict[tuple[str, int], Entry] | None = None  # the kept file's entries not used yet
_used: dict[tuple[str, int], re.Pattern[str]] = {}  # every pattern compiled in this process
_new: dict[tuple[str, int], Entry] = {}  # compiled here, not kept yet
_dirty = False

try:
    import _sre
    from array import array

    _parse, _code = re._parser.parse, re._compiler._code
    if array("I").itemsize != _sre.CODESIZE:
        raise ImportError("the engine's opcode is not a C unsigned int")
    _ENGINE = (sys.hexversion, _sre.MAGIC, PATTERNS_FORMAT)
except (ImportError, AttributeError):  # an interpreter without CPython's re internals
    _sre = None
    _ENGINE = None


def compiled(source: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(source, flags)`, from the kept opcodes when this interpreter kept them."""
    flags = int(flags)
    if _ENGINE is None or flags & re.DEBUG:
        return re.compile(source, flags)
    key = (source, flags)
    pattern = _used.get(key)
    if pattern is not None:  # as re.compile's own cache would hand it back
        return pattern
    # a kept entry is dropped once used: its opcodes now live in the pattern
    entry = _load().pop(key, None)
    if entry is not None:
        try:
            pattern = _compile(source, entry)
        except Exception:  # a damaged entry: compiled again below
            entry = None
    if entry is None:
        entry = _entry(source, flags)
        pattern = _compile(source, entry)
        _new[key] = entry
        _mark_dirty()
    _used[key] = pattern
    return pattern


def _compile(source: str, entry: Entry) -> re.Pattern[str]:
    flags, code, groups, groupindex, indexgroup = entry
    return _sre.compile(source, flags, array("I", code).tolist(), groups, groupindex, indexgroup)


def _entry(source: str, flags: int) -> Entry:
    """What `re._compiler.compile` hands the engine for `source`."""
    parsed = _parse(source, flags)
    code = _code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    # the opcodes are int subclasses (named constants): plain words for marshal
    code = array("I", [int(op) for op in code]).tobytes()
    return int(flags | parsed.state.flags), code, parsed.state.groups - 1, groupindex, tuple(indexgroup)


def cache_path() -> Path:
    return user_cache_dir() / f"selection-patterns-{sys.hexversion:x}.marshal"


def _load() -> dict[tuple[str, int], Entry]:
    global _stored
    if _stored is None:
        _stored = _read()
    return _stored


def _read() -> dict[tuple[str, int], Entry]:
    try:
        engine, entries = marshal.loads(cache_path().read_bytes())
        if engine == _ENGINE and isinstance(entries, dict):
            return entries
    except Exception:  # missing, truncated, another format: compiled as used
        pass
    return {}


def _mark_dirty() -> None:
    global _dirty
    if not _dirty:
        _dirty = True
        atexit.register(save)


def save() -> None:
    """Keep the patterns compiled in this process (with those kept before) for the next."""
    global _dirty
    if not _dirty:
        return
    # the kept file is read again: the entries this process used were dropped from memory
    kept = {**_read(), **_new}
    if len(kept) > KEPT:
        kept = {key: kept[key] for key in _used if key in kept}
    if keep_derived(cache_path(), marshal.dumps((_ENGINE, kept))):
        _new.clear()
    _dirty = False
