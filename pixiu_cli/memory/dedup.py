"""When two notes are the same memory. Character similarity alone merged "跌破1500元加仓"
into "跌破1500元减仓" (0.909), so a merge also needs the same actions, directions, negation
and numbers; text without a single letter or digit (emoji, punctuation) never merges; and
the fuzzy comparison is bounded, so remembering a note stays quick however long it and
the candidates are (an unbounded one once held a write lock long enough to block others)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

DUPLICATE_RATIO = 0.85
# Past this many normalised characters only identical text is one memory: a fuzzy match of
# two long texts is both slow (quadratic) and too blunt to trust with someone's notes.
FUZZY_MAX_CHARS = 400

# Words with a direction: two notes differing in which side of a pair they use are two
# different plans, whatever their similarity. Longer words first so 跌破 wins over 跌.
_OPPOSITES: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("break", ("跌破", "下破", "击穿", "低于", "以下", "不到"), ("突破", "上破", "站上", "高于", "以上", "超过")),
    ("size", ("加仓", "增持", "补仓", "建仓", "加"), ("减仓", "减持", "清仓", "平仓", "减")),
    ("trade", ("买入", "买进", "抄底", "买"), ("卖出", "卖掉", "抛", "卖")),
    ("bias", ("看多", "做多", "多头", "看涨", "多"), ("看空", "做空", "空头", "看跌", "空")),
    ("move", ("上涨", "涨"), ("下跌", "跌")),
    ("exit", ("止盈",), ("止损",)),
    ("view", ("高估", "偏高", "太贵"), ("低估", "偏低", "便宜")),
)
_NEGATION = re.compile("不|别|勿|没|无|非|禁止|莫")
_NUMBER = re.compile(r"\d+(?:\.\d+)?%?|[零〇一二两三四五六七八九十百千万亿半]+[成%]?")


_NOT_ALNUM = re.compile(r"[\W_]+")


def normalise(text: str) -> str:
    """Lower-case letters and digits only (NFKC first, so ６ and 6 are one digit). A regex,
    not a per-character loop: every candidate of a write is normalised, however long."""
    return _NOT_ALNUM.sub("", unicodedata.normalize("NFKC", text).lower())


@dataclass(frozen=True)
class NoteKey:
    """What must be equal for two notes to be one memory, precomputed once per text."""

    text: str  # normalised
    directions: tuple[tuple[str, frozenset[str]], ...]
    negated: bool
    numbers: tuple[str, ...]


def _directions(text: str) -> tuple[tuple[str, frozenset[str]], ...]:
    found = []
    for name, low, high in _OPPOSITES:
        rest, sides = text, set()
        for side, words in (("-", low), ("+", high)):
            for word in sorted(words, key=len, reverse=True):
                if word in rest:
                    sides.add(side)
                    rest = rest.replace(word, " ")
        # a longer word of another pair (跌破) must not count as its single letter (跌)
        text = rest if sides else text
        if sides:
            found.append((name, frozenset(sides)))
    return tuple(found)


@lru_cache(maxsize=2048)
def note_key(text: str) -> NoteKey:
    folded = unicodedata.normalize("NFKC", text)
    numbers = tuple(sorted(n.rstrip("成") if n.endswith("成") else n for n in _NUMBER.findall(folded)))
    return NoteKey(normalise(text), _directions(folded), bool(_NEGATION.search(folded)), numbers)


def could_match(a: NoteKey, other_text: str) -> bool:
    """A cheap bound on same_memory from the other note's normalised text alone, so the
    directions and numbers of a long note are only worked out when they could matter."""
    if not a.text or not other_text:
        return False
    if a.text == other_text:
        return True
    if max(len(a.text), len(other_text)) > FUZZY_MAX_CHARS:
        return False
    return 2 * min(len(a.text), len(other_text)) / (len(a.text) + len(other_text)) >= DUPLICATE_RATIO


def same_memory(a: NoteKey, b: NoteKey) -> bool:
    """True when b is the same note as a: identical normalised text, or (both short) at
    least DUPLICATE_RATIO similar with the same directions, negation and numbers."""
    if not a.text or not b.text:
        return False  # nothing to compare: emoji or punctuation only
    if a.text == b.text:
        return a.directions == b.directions and a.negated == b.negated and a.numbers == b.numbers
    if (a.directions, a.negated, a.numbers) != (b.directions, b.negated, b.numbers):
        return False
    if max(len(a.text), len(b.text)) > FUZZY_MAX_CHARS:
        return False
    # cheap upper bounds first: most candidates are rejected by length alone
    if 2 * min(len(a.text), len(b.text)) / (len(a.text) + len(b.text)) < DUPLICATE_RATIO:
        return False
    matcher = SequenceMatcher(None, a.text, b.text, autojunk=False)
    return (
        matcher.real_quick_ratio() >= DUPLICATE_RATIO
        and matcher.quick_ratio() >= DUPLICATE_RATIO
        and matcher.ratio() >= DUPLICATE_RATIO
    )
