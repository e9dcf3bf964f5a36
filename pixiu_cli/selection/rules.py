"""The selection's word lists and cue tables, read from ``data/selection/rules/``.

They are data, not code: a typo, a shadow word or a cue is added by editing a file, and
the code that applies them stays the same. Each file is read once, on first use.

* ``*.txt`` — one entry a line; ``#`` starts a comment line; blank lines are skipped.
* ``*.tsv`` — tab-separated rows, the same comments.
* ``*.toml`` — tables of patterns. A pattern may name a fragment of its file's
  ``[fragments]`` table as ``{NAME}`` (upper case, so it never reads as a regex repeat
  such as ``{0,4}``); fragments may name earlier fragments. A long pattern may be written
  as a list of parts, read as one string (`joined`).
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path

from pixiu_cli.resources import data_dir

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
