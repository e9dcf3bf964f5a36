"""Find the A-share stock codes a text mentions.

`find_codes(folded, held)` returns (offset, six digits) for every code in text already
folded to half-width lower case (`normalize.fold_width_case`, position by position, so
offsets stay comparable). A code with an explicit exchange (``sh600519``, ``600519.SH``)
must fit that exchange, so an index code such as ``sh000001`` is not taken for a stock. A
bare six-digit run counts only when it looks like an A-share stock code (or is held) and
nothing around it says "this is a number": a longer digit run, a decimal or a signed
number, a currency or an amount/identifier word before it, a unit after it. The prefixes,
words and units are data (``data/selection/rules/codes.toml``); tests/selection/test_code_mentions.py
lists the spellings that are and are not codes, including the known ambiguity (a bare
YYMMDD or postal code written without context cannot be told from a code).

Names are matched by `names.NameTable`, the one name matcher, and judged in `select`.

Normalise a user message before names, codes and intent cues are matched.

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

import re
from dataclasses import dataclass
from functools import cache

from pixiu_cli.kernel.resources import data_dir
from pixiu_cli.market.names.homophones import fix_homophones
from pixiu_cli.market.names.rules import compiled, pairs, table


@dataclass(frozen=True)
class _CodeRules:
    plausible_bare: re.Pattern[str]
    exchange_fit: dict[str, re.Pattern[str]]
    prefix_words: dict[str, str]  # the word written before the digits → its exchange
    suffix_words: dict[str, str]
    prefix: re.Pattern[str]  # matched against the folded text that ends right before the digits
    prefix_window: int  # how far back a prefix can start: the longest word and a separator
    suffix: re.Pattern[str]  # matched right after the digits
    before: tuple[str, ...]  # currencies and amount/identifier words
    near_before: re.Pattern[str]  # identifier words a few characters back (身份证后六位…)
    skip_before: str
    units_after: tuple[str, ...]
    unit_exceptions: dict[str, str]


def _alternatives(words) -> str:
    # Longest first, so a regex alternation prefers sse to ss.
    return "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)))


@cache
def _rules() -> _CodeRules:
    data = table("codes.toml")
    number = data["number_context"]
    prefix_words, suffix_words = data["prefix_words"], data["suffix_words"]
    return _CodeRules(
        plausible_bare=compiled(data["plausible_bare"]),
        exchange_fit={k: compiled(v) for k, v in data["exchange_fit"].items()},
        prefix_words=prefix_words,
        suffix_words=suffix_words,
        prefix=compiled(rf"(?<![a-z0-9_])({_alternatives(prefix_words)})[.:]?$"),
        prefix_window=max(map(len, prefix_words)) + 2,
        suffix=compiled(rf"\.?({_alternatives(suffix_words)})(?![a-z0-9_])"),
        before=(*number["currency_before"], *number["words_before"]),
        near_before=compiled(
            rf"(?:{_alternatives(number['near_before'])})[^0-9，。,.!?！？;；\n]{{0,{number['near_window']}}}$"
        ),
        skip_before=number["skip_before"],
        units_after=tuple(number["units_after"]),
        unit_exceptions=dict(number["unit_exceptions"]),
    )


def warm() -> None:
    _rules()


_DIGIT_RUN = re.compile(r"[0-9]+")


def _is_ascii_glue(ch: str) -> bool:
    return ch.isascii() and (ch.isalnum() or ch == "_")


def _skip_back(text: str, pos: int, skip: str) -> int:
    """Index just past the last character before `pos` that is not in `skip`/whitespace."""
    while pos > 0 and (text[pos - 1] in skip or text[pos - 1].isspace()):
        pos -= 1
    return pos


def _skip_forward(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def _number_context(text: str, start: int, end: int) -> bool:
    """True when the digits text[start:end] read as an amount, a decimal or an id."""
    before = text[start - 1] if start > 0 else "\0"
    after = text[end] if end < len(text) else "\0"
    after2 = text[end + 1] if end + 1 < len(text) else "\0"
    # Signs and dotted/hyphenated chains: 1.600519, 600519.5, 2026-600519, +600519.
    if before in "+±−":
        return True
    if before in ".-" and start >= 2 and text[start - 2].isdigit():
        return True
    if after in ".-" and after2.isdigit():
        return True
    # Currency signs and amount/identifier words before (spaces, ':' and '=' skipped).
    # Compared in place: slicing the text before every candidate made a paste full of
    # codes quadratic.
    rules = _rules()
    head_end = _skip_back(text, start, rules.skip_before)
    for word in rules.before:
        if text.endswith(word, 0, head_end):
            # An ASCII word must not be the tail of a longer ASCII word (e.g. "lqq").
            if word.isascii() and word.isalpha():
                cut = head_end - len(word)
                if cut > 0 and _is_ascii_glue(text[cut - 1]):
                    continue
            return True
    # An identifier word a few characters back: 身份证后六位 000333, 房贷还剩 300015.
    if rules.near_before.search(text, max(0, start - 16), start):
        return True
    return _unit_after(text, end)


def _unit_after(text: str, end: int) -> bool:
    """A unit right after the digits (spaces skipped): 600519元, 300000股."""
    rules = _rules()
    tail_at = _skip_forward(text, end)
    for unit in rules.units_after:
        if text.startswith(unit, tail_at):
            nxt = text[tail_at + len(unit)] if tail_at + len(unit) < len(text) else ""
            if nxt and nxt in rules.unit_exceptions.get(unit, ""):
                continue
            if unit.isascii() and unit.isalpha() and nxt and _is_ascii_glue(nxt):
                continue
            return True
    return False


def find_codes(folded: str, held: frozenset[str]) -> list[tuple[int, str]]:
    """Codes in already folded text: (offset, six digits), per the module docstring."""
    rules = _rules()
    found: list[tuple[int, str]] = []
    for match in _DIGIT_RUN.finditer(folded):
        code = match.group()
        start, end = match.span()
        if len(code) != 6:
            continue
        # Any Unicode digit glued on either side makes it part of a longer number.
        if (start > 0 and folded[start - 1].isdigit()) or (end < len(folded) and folded[end].isdigit()):
            continue
        exchange = None
        left = start
        prefix = rules.prefix.search(folded, max(0, start - rules.prefix_window), start)
        if prefix is not None:
            exchange = rules.prefix_words[prefix.group(1)]
            left = prefix.start()
        right = end
        suffix = rules.suffix.match(folded, end)
        if suffix is not None:
            exchange = exchange or rules.suffix_words[suffix.group(1)]
            right = suffix.end()
        if left > 0 and _is_ascii_glue(folded[left - 1]):
            continue
        if right < len(folded) and _is_ascii_glue(folded[right]):
            continue
        if exchange is not None:
            if not rules.exchange_fit[exchange].match(code):
                continue
            # An exchange marker is decisive: no further number checks.
            found.append((left, code))
            continue
        if not (rules.plausible_bare.match(code) or code in held):
            continue
        if _number_context(folded, start, end):
            continue
        found.append((start, code))
    return found


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
def _traditional_chars() -> re.Pattern[str]:
    """One character class of every traditional character: a few KB of opcodes (kept with
    the rules' patterns), where a set of ~4,000 one-character strings held 0.4 MiB."""
    path = data_dir() / "selection" / "traditional_chars.txt"
    runs: list[list[int]] = []  # runs of consecutive code points, written as ranges
    for point in sorted(map(ord, set(path.read_text(encoding="utf-8").strip()))):
        if runs and runs[-1][1] == point - 1:
            runs[-1][1] = point
        else:
            runs.append([point, point])
    ranges = (re.escape(chr(a)) + (f"-{re.escape(chr(b))}" if b > a else "") for a, b in runs)
    return compiled(f"[{''.join(ranges)}]" if runs else "(?!)")


@cache
def _converter():
    from opencc import OpenCC  # heavy: dictionaries are parsed on first use

    return OpenCC("t2s")


def to_simplified(text: str) -> str:
    if not _traditional_chars().search(text):  # one regex pass: every listed name passes here
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
