"""Normalise a user message before names, codes and intent cues are matched.

Every step maps one character to one character (or one word to a word of the same
length), so an offset in the normalised text is the same offset in the original:

1. full-width ASCII → ASCII, ideographic space → space, ASCII upper → lower case;
2. traditional → simplified Chinese with OpenCC, loaded only when the text holds a
   character OpenCC would change (a set shipped in ``data/selection/traditional_chars.txt``)
   — importing the converter and its dictionaries is slow, and most messages need none;
3. dialect pronouns and particles (俺 / 咱 → 我, 我滴 → 我的; ``data/selection/rules/dialect.tsv``);
4. IME homophones of position and portfolio words (藏位 → 仓位, 组和 → 组合), found by pinyin
   similarity against a vocabulary (`homophones.fix_homophones`), not from a table of typos."""

from __future__ import annotations

from functools import cache

from pixiu_cli.kernel.resources import data_dir
from pixiu_cli.market.names.homophones import fix_homophones
from pixiu_cli.market.names.rules import pairs


def _fold_char(cp: int) -> int:
    if 0xFF01 <= cp <= 0xFF5E:
        cp -= 0xFEE0
    if ord("A") <= cp <= ord("Z"):
        cp += 32
    return cp


_FOLD = {cp: _fold_char(cp) for cp in (*range(0xFF01, 0xFF5F), *range(ord("A"), ord("Z") + 1))}
_FOLD[0x3000] = 0x20


def fold_width_case(text: str) -> str:
    return text.translate(_FOLD)


@cache
def dialect() -> tuple[tuple[str, str], ...]:
    """(dialect, standard) pairs from ``data/selection/rules/dialect.tsv``, in file order."""
    table = pairs("dialect.tsv")
    for word, standard in table:
        if len(word) != len(standard):  # another length would move every offset after it
            raise ValueError(f"selection rules: dialect {word!r} and {standard!r} differ in length")
    return table


@cache
def _traditional_chars() -> frozenset[str]:
    path = data_dir() / "selection" / "traditional_chars.txt"
    return frozenset(path.read_text(encoding="utf-8").strip())


@cache
def _converter():
    from opencc import OpenCC  # heavy: dictionaries are parsed on first use

    return OpenCC("t2s")


def to_simplified(text: str) -> str:
    if _traditional_chars().isdisjoint(text):  # a set operation: every listed name passes here
        return text
    converted = _converter().convert(text)
    if len(converted) == len(text):
        return converted
    # A phrase rule changed the length: convert character by character to keep offsets.
    convert = _converter().convert
    return "".join(c if len(c := convert(ch)) == 1 else ch for ch in text)


def standard_pronouns(text: str) -> str:
    for word, standard in dialect():
        if word in text:
            text = text.replace(word, standard)
    return text


def normalize(text: str) -> str:
    """The message in one spelling: half-width, lower case, simplified, standard pronouns,
    homophones fixed; the same length as `text`."""
    return fix_homophones(standard_pronouns(to_simplified(fold_width_case(text))))
