"""Quote stored text (notes, news, reports) as data inside the `[上下文信息]` block.

Stored text is written by users, news feeds or earlier model output; it must not be able
to close the block, forge a section or a chat role, or smuggle invisible characters.
`quote_data` is total (any `str`, including lone surrogates) and applies, in order:

1. Lone surrogates become U+FFFD (so the result always encodes as UTF-8).
2. Look-alikes (full-width, small and vertical forms, Kangxi radicals, compatibility
   ideographs, mathematical letters) are folded with NFKC, character by character, so the
   later rules see through them; everyday Chinese punctuation is kept as written.
3. Split into lines on every line boundary `str.splitlines` knows.
4. In each line: tab → space; every other control and format character is removed;
   surrounding whitespace is stripped; empty lines are dropped.
5. Line starts that imitate structure are defused: a Markdown header, a chat role label.
6. The lines are joined with `` ↵ `` into a single line.
7. Markers are defused anywhere in the text: the block's own markers, the 【】 of section
   headers, chat-template tokens and tags, and the quote marks themselves.
8. The result is wrapped in ``「`` … ``」``.

The characters, words and replacements are the tables and patterns below;
tests/context/test_quoting.py shows each rule on hostile examples.

Instructions inside stored text ("忽略以上指令…") stay readable, but only as quoted data.
The output never contains a line break, a control character, ``[上下文信息]`` or
``[/上下文信息]``. It is not meant to be idempotent.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

LINE_JOINER = " ↵ "
OPEN_QUOTE = "「"
CLOSE_QUOTE = "」"

_SURROGATES = re.compile("[\ud800-\udfff]")
_KEEP = frozenset("，！？：；（）％～￥")
_FOLD_RANGES = (
    (0xFE10, 0xFE1F),  # vertical forms
    (0xFE30, 0xFE4F),  # CJK compatibility forms
    (0xFE50, 0xFE6F),  # small form variants
    (0xFF00, 0xFFEF),  # half-width and full-width forms
    (0x2F00, 0x2FDF),  # Kangxi radicals
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0x2F800, 0x2FA1F),  # CJK compatibility ideographs supplement
    (0x1D400, 0x1D7FF),  # mathematical alphanumeric symbols
)
_LEADING_HASHES = re.compile(r"^#+")
_ROLE_LABEL = re.compile(
    r"^((?:system|user|assistant|human|ai|tool|developer|function|系统|用户|助手|助理)\s*)[:：]", re.IGNORECASE
)
_BLOCK_OPEN = re.compile(r"\[(?=[\s/／]*上下文信息)")
_BLOCK_CLOSE = re.compile(r"(?<=上下文信息)(\s*)\]")
_TEMPLATE_TAG = re.compile(r"<(\s*/?\s*(?:think|s|system|user|assistant|tool)\s*)>", re.IGNORECASE)
_INST = re.compile(r"\[(\s*/?\s*INST\s*)\]", re.IGNORECASE)
_SYS = re.compile(r"<<(\s*/?\s*SYS\s*)>>", re.IGNORECASE)
_TRANSLATE = str.maketrans({"【": "〔", "】": "〕", "「": "『", "」": "』"})


def _fold_char(ch: str) -> str:
    if ch in _KEEP:
        return ch
    cp = ord(ch)
    for low, high in _FOLD_RANGES:
        if low <= cp <= high:
            return unicodedata.normalize("NFKC", ch)
    return ch


def _clean_line(line: str) -> str:
    chars = []
    for ch in line:
        if ch == "\t":
            chars.append(" ")
        elif unicodedata.category(ch) in ("Cc", "Cf"):
            continue
        else:
            chars.append(ch)
    return "".join(chars).strip()


def _defuse_line_start(line: str) -> str:
    line = _LEADING_HASHES.sub(lambda m: "＃" * len(m.group()), line)
    return _ROLE_LABEL.sub(lambda m: m.group(1) + "∶", line)


def _defuse_markers(text: str) -> str:
    text = _BLOCK_OPEN.sub("〔", text)
    text = _BLOCK_CLOSE.sub(lambda m: m.group(1) + "〕", text)
    text = text.replace("<|", "‹|").replace("|>", "|›")
    text = _TEMPLATE_TAG.sub(lambda m: f"‹{m.group(1)}›", text)
    text = _INST.sub(lambda m: f"〔{m.group(1)}〕", text)
    text = _SYS.sub(lambda m: f"‹‹{m.group(1)}››", text)
    return text.translate(_TRANSLATE)


@lru_cache(maxsize=4096)
def defuse(text: str) -> str:
    """Steps 1–7 without the quotes: for short stored labels (names, strategy, direction)
    that read better bare but must be just as inert. Remembered: the same names, notes and
    conclusions are quoted on every turn (500 holdings are 1,000 names per block)."""
    text = _SURROGATES.sub("\ufffd", text)
    text = "".join(map(_fold_char, text))
    lines = (_clean_line(line) for line in text.splitlines())
    body = LINE_JOINER.join(_defuse_line_start(line) for line in lines if line)
    return _defuse_markers(body)


def quote_data(text: str) -> str:
    """Render stored text as one quoted, inert line: 「…」. See the module docstring."""
    return OPEN_QUOTE + defuse(text) + CLOSE_QUOTE


# The backtest engine's strategy names (pixiu_cli/market/analytics/strategies.py; a test keeps the
# two equal), shown bare; any other strategy must be one plain word to be shown bare too.
ENGINE_STRATEGIES = frozenset({"买入持有", "MA20/MA60 趋势", "20 日突破", "RSI 均值回归"})
SIGNAL_DIRECTIONS = frozenset({"偏多", "偏空", "中性", "看多", "看空", "bullish", "bearish", "neutral"})
# One plain word: Chinese characters, letters, digits and the * and - of names like *ST东电
# or 三六零-U. Separators (· ， ； ： %), spaces and quotes, which a forged label needs to
# look like figures of its own, make a label quoted instead.
_PLAIN_WORD = re.compile(r"[\u4e00-\u9fffA-Za-z0-9*\-]{1,12}")
_PERIOD = re.compile(r"\d{4}(?:[-/.]\d{1,2}){0,2}\s*(?:~|～|至|到|-|—)\s*\d{4}(?:[-/.]\d{1,2}){0,2}")


def label(text: str, known: frozenset[str] = frozenset()) -> str:
    """A stored label (a name, a strategy, a direction, a persona key) bare when it is one of
    the `known` words or one plain word, else quoted like any stored text: a holding named
    "贵州茅台 · 核心仓 · 100,000 股" must not read as figures of the block's own."""
    return text if text in known or _PLAIN_WORD.fullmatch(text) else quote_data(text)


def period_label(text: str) -> str:
    """A backtest period bare when it is a date range (2021-01~2026-10), else quoted."""
    return text if _PERIOD.fullmatch(text) else quote_data(text)
