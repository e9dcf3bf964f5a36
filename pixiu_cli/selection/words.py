"""Word boundaries from a Chinese segmenter (jieba), so a cue or a name found inside a longer
word is not taken for that cue or name: 其他的 is 其他 + 的, not 他的; 心灵美的 holds 心灵美,
not 美的; 我家仓库 holds 仓库, not 加仓's homophone 家仓.

jieba is imported and its dictionary loaded on the first question that needs a boundary
(once per process; never on `pixiu --help`). Its user dictionary is the vocabulary of
position words (``data/selection/rules/words.toml``) and the names of the name table the
caller passes (`add_names`), so 泸州老窖 and 核心仓 stay whole.

The prefix dictionary jieba builds from its word list (500,000 entries) is kept in pixiu's
user cache and read with one `marshal.loads`: jieba's own loader unmarshals its cache from
the open file, which costs about three times as much (~1.0 s of CPU against ~0.35 s), and
keeps that cache in the shared temporary folder, where any user may replace it.
"""

from __future__ import annotations

import marshal
import os
import weakref
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache

from pixiu_cli.resources import keep_derived, user_cache_dir
from pixiu_cli.selection.rules import vocabulary

_DICTIONARY_FORMAT = 1  # bump when what is kept changes shape


@dataclass(frozen=True)
class Words:
    """The segmentation of one text: its words and the start offset of each."""

    words: tuple[str, ...]
    starts: tuple[int, ...]
    length: int

    def boundary(self, offset: int) -> bool:
        """True when `offset` falls between two words (or at either end of the text)."""
        if offset <= 0 or offset >= self.length:
            return True
        i = bisect_right(self.starts, offset) - 1
        return self.starts[i] == offset

    def whole(self, start: int, end: int) -> bool:
        """True when text[start:end] is made of whole words (cuts none)."""
        return self.boundary(start) and self.boundary(end)

    def cut_by(self, start: int, end: int) -> list[str]:
        """The words text[start:end] cuts through at either end."""
        cut = []
        for offset in (start, end):
            if not self.boundary(offset):
                cut.append(self.words[bisect_right(self.starts, offset) - 1])
        return cut


@cache
def _segmenter():
    import logging

    jieba = _import_jieba()
    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    with tokenizer.lock:
        shipped = os.path.join(os.path.dirname(jieba.__file__), "dict.txt")
        tokenizer.FREQ, tokenizer.total = _prefix_dictionary(tokenizer, shipped, jieba.__version__)
        tokenizer.initialized = True
    for word in vocabulary():
        tokenizer.add_word(word, freq=10_000)
    return tokenizer


def _import_jieba():
    """jieba opens its word list through pkg_resources when setuptools is installed (~0.2 s to
    import, for one file path) and from the folder beside its module otherwise, as it does in
    a Python 3.12 virtual environment, which has no setuptools: the second is taken here."""
    from pixiu_cli.optional_imports import import_hiding

    return import_hiding("jieba", ("pkg_resources",))


def _prefix_dictionary(tokenizer, source: str, version: str) -> tuple[dict[str, int], int]:
    """jieba's (word and prefix → frequency, total) for the word list `source`: from the user
    cache when kept there for this very list and jieba `version`, else built and kept."""
    try:
        stat = os.stat(source)
        stamp = (_DICTIONARY_FORMAT, version, source, stat.st_size, stat.st_mtime_ns)
    except OSError:
        stamp = None
    kept = user_cache_dir() / "segmenter.marshal"
    if stamp is not None:
        loaded = _read_kept(kept, stamp)
        if loaded is not None:
            return loaded
    with open(source, "rb") as words_file:
        freq, total = tokenizer.gen_pfdict(words_file)
    if stamp is not None:
        keep_derived(kept, marshal.dumps((stamp, freq, total)))
    return freq, total


def _read_kept(path, stamp: tuple) -> tuple[dict[str, int], int] | None:
    try:
        kept_stamp, freq, total = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):  # missing, truncated, not ours
        return None
    if kept_stamp != stamp or not isinstance(freq, dict) or not isinstance(total, int):
        return None
    return freq, total


_ADDED: set[str] = set()
_TABLES: weakref.WeakSet = weakref.WeakSet()


def use_names(table) -> None:
    """Make a name table's names (of three characters or more: the security master's, the
    aliases) words of the segmenter, once per table."""
    if table in _TABLES:
        return
    add_names(alias for alias in table.names if len(alias) >= 3)
    _TABLES.add(table)


def add_names(names: Iterable[str]) -> None:
    """Make names (security names, aliases) single words for the segmenter; idempotent."""
    fresh = [n for n in names if n not in _ADDED and len(n) > 1]
    if not fresh:
        return
    tokenizer = _segmenter()
    for name in fresh:
        tokenizer.add_word(name, freq=5_000)
        _ADDED.add(name)
    segment.cache_clear()


@lru_cache(maxsize=256)
def segment(text: str) -> Words:
    """The word starts of `text` (dictionary words only: no guessing of unknown words)."""
    words = tuple(_segmenter().cut(text, HMM=False))
    starts, offset = [], 0
    for word in words:
        starts.append(offset)
        offset += len(word)
    return Words(words, tuple(starts), len(text))


def warm() -> None:
    """Load the segmenter now (the REPL does, in the background, once the prompt is drawn)."""
    _segmenter()


def frequency(word: str) -> int:
    """How common the segmenter's dictionary says a word is (0 for an unknown word)."""
    return int(_segmenter().FREQ.get(word) or 0)
