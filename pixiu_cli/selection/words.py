"""Word boundaries from a Chinese segmenter (jieba), so a cue or a name found inside a longer
word is not taken for that cue or name: 其他的 is 其他 + 的, not 他的; 心灵美的 holds 心灵美,
not 美的; 我家仓库 holds 仓库, not 加仓's homophone 家仓.

jieba is imported and its dictionary loaded on the first question that needs a boundary
(about half a second, once per process; never on `pixiu --help`). Its user dictionary is the
vocabulary of position words (``data/selection/rules/words.toml``) and the names of the
name table the caller passes (`add_names`), so 泸州老窖 and 核心仓 stay whole.
"""

from __future__ import annotations

import weakref
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache

from pixiu_cli.selection.rules import table


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

    import jieba  # heavy: its dictionary (350,000 words) is parsed on first use

    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    for word in table("words.toml")["vocabulary"]:
        tokenizer.add_word(word, freq=10_000)
    return tokenizer


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
