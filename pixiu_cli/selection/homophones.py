"""Typos of position and portfolio words found by their pinyin, not by a table of typos.

An investor types with a pinyin IME and picks the wrong character of the right sound:
藏位 for 仓位, 核新仓 for 核心仓, 陪置 for 配置, 迟仓 for 持仓. `fix_homophones` replaces a
run of characters with a vocabulary word (``data/selection/rules/words.toml``) when

* it has the word's length and differs from it in exactly one character,
* that character can be read (any of its readings, toneless, with the fuzzy pinyin of
  the same file: zh/z, ang/an …) as the word's character there,
* the run is not itself a common word (配制, 受益: the segmenter's dictionary frequency),
  and does not cut a common word of the sentence (我家仓库 holds 仓库, not 家仓 → 加仓).

A character's reading is its usual one (的 is de, not the di of 的确), so a rare reading
makes no typo.

The fix has the same length as the typo, so offsets in the text do not move. The readings
come from a compact table of pypinyin's, kept in the user cache and read on the first
candidate, which most messages never have; pypinyin itself is imported only to build it.
"""

from __future__ import annotations

import marshal
from array import array
from bisect import bisect_left
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pixiu_cli.resources import keep_derived, user_cache_dir
from pixiu_cli.selection.rules import table, vocabulary

# A long paste is read for its question: its head and tail (see intent.HEAD, TAIL).
_HEAD, _TAIL = 1000, 500


@dataclass(frozen=True)
class _Vocabulary:
    words: frozenset[str]
    by_char: dict[tuple[int, int, str], tuple[str, ...]]  # (length, position, char) → words
    min_freq: int
    chars: frozenset[str]  # every character of a vocabulary word


def _is_han(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff"


@cache
def _vocabulary() -> _Vocabulary:
    data = table("words.toml")
    words = vocabulary()
    index: dict[tuple[int, int, str], list[str]] = {}
    for word in words:
        for position, ch in enumerate(word):
            index.setdefault((len(word), position, ch), []).append(word)
    return _Vocabulary(
        frozenset(words),
        {k: tuple(v) for k, v in index.items()},
        int(data["real_word_min_freq"]),
        frozenset("".join(words)),
    )


def _fold(syllable: str) -> str:
    rules = table("words.toml")
    for initial, folded in rules["fuzzy_initials"].items():
        if syllable.startswith(initial):
            syllable = folded + syllable[len(initial) :]
            break
    for final, folded in rules["fuzzy_finals"].items():
        if syllable.endswith(final):
            return syllable[: -len(final)] + folded
    return syllable


@cache
def readings(ch: str) -> frozenset[str]:
    """The usual reading of one character, toneless and fuzzy-folded (a set, to compare)."""
    reading = _reading_table().get(ch)
    if reading is None:  # not in pypinyin's character dictionary: pypinyin says what it makes of it
        pinyin, style = _pinyin()
        reading = pinyin(ch, style=style)[0]
    return frozenset(_fold(r) for r in reading)


class _Readings:
    """pypinyin's toneless reading of each character of its dictionary, compact: the code
    points sorted, and per code point the index of its reading among the few hundred there
    are (~0.3 MB, against ~10 MiB for pypinyin imported)."""

    def __init__(self, codes: bytes, indexes: bytes, syllables: list[str]):
        self._codes, self._indexes = array("I"), array("H")
        self._codes.frombytes(codes)
        self._indexes.frombytes(indexes)
        if len(self._codes) != len(self._indexes):
            raise ValueError("damaged reading table")
        self._syllables = [tuple(s.split(",")) for s in syllables]

    def get(self, ch: str) -> tuple[str, ...] | None:
        code = ord(ch)
        at = bisect_left(self._codes, code)
        if at < len(self._codes) and self._codes[at] == code:
            return self._syllables[self._indexes[at]]
        return None


def _build_readings() -> tuple[bytes, bytes, list[str]]:
    pinyin, style = _pinyin()
    from pypinyin.pinyin_dict import pinyin_dict

    codes = sorted(pinyin_dict)
    syllables: dict[str, int] = {}
    indexes = array(
        "H", (syllables.setdefault(",".join(pinyin(chr(c), style=style)[0]), len(syllables)) for c in codes)
    )
    return array("I", codes).tobytes(), indexes.tobytes(), list(syllables)


@cache
def _reading_table() -> _Readings:
    """The table from the user cache when kept there for this very pypinyin dictionary, else
    built from pypinyin (~0.4 s, once) and kept."""
    from importlib.util import find_spec

    spec = find_spec("pypinyin")
    source = Path(next(iter(spec.submodule_search_locations))) / "pinyin_dict.py"
    stat = source.stat()
    stamp = (_READINGS_FORMAT, str(source), stat.st_size, stat.st_mtime_ns)
    kept = user_cache_dir() / "pinyin_readings.marshal"
    try:
        kept_stamp, *table = marshal.loads(kept.read_bytes())
        if kept_stamp == stamp:
            return _Readings(*table)
    except (OSError, EOFError, ValueError, TypeError):  # missing, truncated, not ours
        pass
    table = _build_readings()
    keep_derived(kept, marshal.dumps((stamp, *table)))
    return _Readings(*table)


# pypinyin reads these when it is imported: without its phrase dictionary (three quarters
# of its import, ~0.15 s of CPU) and without copying its character dictionary. A single
# character's reading comes from the character dictionary alone: the same for all 41,923
# characters either way (tests/selection/test_pinyin_readings.py).
_PYPINYIN_LEAN = {"PYPINYIN_NO_PHRASES": "1", "PYPINYIN_NO_DICT_COPY": "1"}
_READINGS_FORMAT = 1  # bump when the kept table changes shape


@cache
def _pinyin():
    """pypinyin's `pinyin` and its toneless style, imported to build the reading table (and
    for a character outside it) only."""
    import os

    saved = {name: os.environ.get(name) for name in _PYPINYIN_LEAN}
    os.environ.update(_PYPINYIN_LEAN)
    try:
        from pypinyin import Style, pinyin
    finally:  # read once, at the import: the environment is left as it was
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return pinyin, Style.NORMAL


def _homophone(run: str, word: str) -> bool:
    differ = [i for i, (a, b) in enumerate(zip(run, word)) if a != b]
    if len(differ) != 1 or not _is_han(run[differ[0]]):
        return False
    return not readings(run[differ[0]]).isdisjoint(readings(word[differ[0]]))


def _candidates(text: str, start: int, vocabulary: _Vocabulary) -> list[str]:
    found = []
    for length in (3, 2):
        run = text[start : start + length]
        if len(run) < length or run in vocabulary.words:
            continue
        words = {w for position, ch in enumerate(run) for w in vocabulary.by_char.get((length, position, ch), ())}
        found.extend(w for w in sorted(words) if _homophone(run, w))
    return found


def _plausible(text: str, start: int, run: str) -> bool:
    from pixiu_cli.selection.words import frequency, segment

    common = _vocabulary().min_freq
    if frequency(run) >= common:
        return False
    return all(frequency(word) < common for word in segment(text).cut_by(start, start + len(run)))


def _fix_part(text: str, lo: int, hi: int) -> str:
    vocabulary = _vocabulary()
    if vocabulary.chars.isdisjoint(text[lo:hi]):
        return text
    chars = list(text)
    start = lo
    while start < hi:
        # A typo shares all but one character with its word: a run whose first two
        # characters are both foreign to the vocabulary is none.
        if text[start] not in vocabulary.chars and text[start + 1 : start + 2] not in vocabulary.chars:
            start += 1
            continue
        for word in _candidates(text, start, vocabulary):
            if _plausible(text, start, text[start : start + len(word)]):
                chars[start : start + len(word)] = word
                start += len(word) - 1
                break
        start += 1
    return "".join(chars)


def fix_homophones(text: str) -> str:
    """`text` with IME homophones of position words fixed; the same length."""
    if len(text) <= _HEAD + _TAIL:
        return _fix_part(text, 0, len(text))
    return _fix_part(_fix_part(text, 0, _HEAD), len(text) - _TAIL, len(text))


def warm() -> None:
    """Load the reading table now (built from pypinyin the first time, ~0.4 s), off the first
    question that has a homophone candidate."""
    _reading_table()
