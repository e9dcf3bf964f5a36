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

The fix has the same length as the typo, so offsets in the text do not move. Which
characters sound like each vocabulary character is shipped, worked out from pypinyin, in
``data/selection/homophones.tsv`` (``scripts/build_homophones.py``; a test checks it against
pypinyin), so a message is read without importing pypinyin and its 41,923-character
dictionary (~40 ms of CPU in every process with a candidate, which is most questions)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache

from pixiu_cli.kernel.resources import data_dir
from pixiu_cli.market.names.rules import table, vocabulary

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
    pinyin, style = _pinyin()
    return frozenset(_fold(r) for r in pinyin(ch, style=style)[0])


# pypinyin reads these when it is imported: without its phrase dictionary (three quarters
# of its import, ~0.15 s of CPU) and without copying its character dictionary. A single
# character's reading comes from the character dictionary alone: the same for all 41,923
# characters either way (tests/selection/test_pinyin_readings.py).
_PYPINYIN_LEAN = {"PYPINYIN_NO_PHRASES": "1", "PYPINYIN_NO_DICT_COPY": "1"}


@cache
def _pinyin():
    """pypinyin's `pinyin` and its toneless style, imported on the first candidate only."""

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


def pinyin_dict() -> dict[int, str]:
    """pypinyin's character dictionary: code point → its readings with tones, comma-separated,
    the usual one first (imported lean, as `_pinyin` does)."""
    _pinyin()
    from pypinyin.pinyin_dict import pinyin_dict as readings

    return readings


SOUNDS_FILE = "homophones.tsv"


def sound_table() -> dict[str, str]:
    """Each vocabulary character → every CJK character pypinyin knows that reads as it does
    (its usual reading, toneless, fuzzy-folded), itself included: what the shipped file
    holds. A character pypinyin does not know reads as itself, like no other."""
    from pypinyin.pinyin_dict import pinyin_dict

    by_reading: dict[str, set[str]] = {}
    for ch in map(chr, pinyin_dict):
        if _is_han(ch):  # a typo's character is one (`_homophone`)
            for reading in readings(ch):
                by_reading.setdefault(reading, set()).add(ch)
    return {
        ch: "".join(sorted(set().union(*(by_reading.get(r, {ch}) for r in readings(ch)))))
        for ch in sorted(_vocabulary().chars)
    }


@cache
def _sounds() -> dict[str, frozenset[str]]:
    """The shipped sound table (``data/selection/homophones.tsv``)."""

    lines = (data_dir() / "selection" / SOUNDS_FILE).read_text(encoding="utf-8").splitlines()
    return {ch: frozenset(alike) for ch, alike in (line.split("\t") for line in lines if line)}


def _homophone(run: str, word: str) -> bool:
    differ = [i for i, (a, b) in enumerate(zip(run, word)) if a != b]
    if len(differ) != 1 or not _is_han(run[differ[0]]):
        return False
    return run[differ[0]] in _sounds().get(word[differ[0]], ())


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
    from pixiu_cli.market.names.words import frequency, segment

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
    """Load the sound table now, off the first question that has a homophone candidate."""
    _sounds()
