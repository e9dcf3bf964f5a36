"""Word boundaries from a Chinese segmenter, so a cue or a name found inside a longer word is
not taken for that cue or name: 其他的 is 其他 + 的, not 他的; 心灵美的 holds 心灵美, not 美的;
我家仓库 holds 仓库, not 加仓's homophone 家仓.

The segmentation is jieba's without its hidden Markov model (`jieba.Tokenizer.cut(text,
HMM=False)`): the most probable path through the words of jieba's word list, the same words
for the same text (tests/selection/test_segmenter_dictionary.py holds it to jieba's own cut
on the selection corpus). jieba itself is not imported: it holds its dictionary as a dict of
500,000 words and prefixes (~60 MiB of Python objects, plus ~20 MiB for the model it imports
and pixiu never uses). The word list is read once into a compact form kept in pixiu's user
cache (`_Dictionary`: for each word length, the words and prefixes sorted as UTF-32-BE, their
frequencies, and every 128th word, ~8 MB on disk), and only that sample is held in memory: a
lookup reads the block of 128 its key falls in from the open file (the blocks a question
needs stay cached), so the segmenter's resident cost is well under a megabyte. Memory-mapping
the file instead cost ~2.5 MiB of resident pages per question: the kernel maps the pages
around each one a binary search touches.

The dictionary is opened on the first question that needs a boundary (once per process;
never on `pixiu --help`). Its added words are the vocabulary of position words
(``data/selection/rules/words.toml``) and the names of the name table the caller passes
(`add_names`), so 泸州老窖 and 核心仓 stay whole."""

from __future__ import annotations

import json
import os
import re
import threading
import weakref
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from importlib.util import find_spec
from math import log
from pathlib import Path

from pixiu_cli.kernel.resources import keep_derived, user_cache_dir
from pixiu_cli.market.names.rules import vocabulary

_DICTIONARY_FORMAT = 3  # bump when what is kept changes shape
_MAGIC = b"pixiu-segmenter\n"
_KEPT_NAME = "segmenter.words"


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
        return [word for word, _ in self.cuts(start, end)]

    def cuts(self, start: int, end: int) -> list[tuple[str, int]]:
        """The words text[start:end] cuts through at either end, each with how many of its
        characters lie inside the span."""
        cut = []
        for offset in (start, end):
            if not self.boundary(offset):
                at = bisect_right(self.starts, offset) - 1
                word, word_start = self.words[at], self.starts[at]
                cut.append((word, min(end, word_start + len(word)) - max(start, word_start)))
        return cut


class _Dictionary:
    """jieba's prefix dictionary (word → frequency; each prefix of a word → 0, unless a word
    itself) in a compact form: per length, the keys as fixed-width UTF-32-BE in code point
    order (so bytes compare as the strings do), their frequencies, and every BLOCK-th key,
    which is all that is held in memory; a lookup reads the one block its key falls in."""

    BLOCK = 128

    def __init__(self, blob: _Blob, body_at: int, header: dict):
        self.total: int = header["total"]
        self.stamp = header.get("stamp")
        self._blob = blob
        self._groups: dict[int, tuple[int, int, int, list[bytes]]] = {}
        for length, count, keys_at, freqs_at, firsts_at in header["groups"]:
            width, blocks = 4 * length, -(-count // self.BLOCK)
            raw = blob.read(body_at + firsts_at, blocks * width)
            firsts = [raw[i : i + width] for i in range(0, len(raw), width)]
            self._groups[length] = (body_at + keys_at, body_at + freqs_at, count, firsts)
        self._block = lru_cache(maxsize=256)(self._read_block)

    def get(self, key: str) -> int | None:
        """The frequency of `key` (0 for a prefix only), None when it is neither."""
        group = self._groups.get(len(key))
        if group is None:
            return None
        wanted = key.encode("utf-32-be", "surrogatepass")
        block = bisect_right(group[3], wanted) - 1
        if block < 0:
            return None
        keys, freqs = self._block(len(key), block)
        at = bisect_left(keys, wanted)
        return freqs[at] if at < len(keys) and keys[at] == wanted else None

    def _read_block(self, length: int, block: int) -> tuple[list[bytes], array]:
        keys_at, freqs_at, count, _ = self._groups[length]
        width, first = 4 * length, block * self.BLOCK
        size = min(self.BLOCK, count - first)
        raw = self._blob.read(keys_at + first * width, size * width)
        freqs = array("I")
        freqs.frombytes(self._blob.read(freqs_at + first * 4, size * 4))
        return [raw[i : i + width] for i in range(0, len(raw), width)], freqs


class _Blob:
    """The kept file's bytes, read where asked: from the open file (what is read is not kept
    in the process), or from memory when the file could not be kept."""

    def __init__(self, data: bytes | None = None, file=None):
        self._data, self._file = data, file
        self.size = len(data) if data is not None else os.fstat(file.fileno()).st_size
        self._lock = threading.Lock()  # where there is no pread, a seek and a read are one step

    def read(self, offset: int, size: int) -> bytes:
        if self._data is not None:
            return self._data[offset : offset + size]
        if hasattr(os, "pread"):
            return os.pread(self._file.fileno(), size, offset)
        with self._lock:
            self._file.seek(offset)
            return self._file.read(size)


def _compact(freq: dict[str, int], total: int, stamp: list) -> bytes:
    """The kept file: a magic line, a JSON header line, then each group's keys, frequencies
    and every BLOCK-th key."""
    by_length: dict[int, list[str]] = {}
    for key in freq:
        by_length.setdefault(len(key), []).append(key)
    chunks, groups, offset = [], [], 0
    for length in sorted(by_length):
        keys = sorted(by_length[length])
        blob = "".join(keys).encode("utf-32-be", "surrogatepass")
        freqs = array("I", (freq[k] for k in keys)).tobytes()
        firsts = "".join(keys[:: _Dictionary.BLOCK]).encode("utf-32-be", "surrogatepass")
        groups.append((length, len(keys), offset, offset + len(blob), offset + len(blob) + len(freqs)))
        chunks += [blob, freqs, firsts]
        offset += len(blob) + len(freqs) + len(firsts)
    header = json.dumps({"stamp": stamp, "total": total, "groups": groups, "size": offset}).encode()
    return _MAGIC + header + b"\n" + b"".join(chunks)


_HEADER_MOST = 1 << 16  # the header line is a few kilobytes


def _open(blob: _Blob) -> _Dictionary | None:
    """The dictionary in a kept file, None when it is not one (or not whole)."""
    start = blob.read(0, _HEADER_MOST)
    end = start.find(b"\n", len(_MAGIC))
    if not start.startswith(_MAGIC) or end < 0:
        return None
    try:
        header = json.loads(start[len(_MAGIC) : end])
        if not isinstance(header, dict) or blob.size - end - 1 != header["size"]:
            return None
        if not isinstance(header["total"], int) or not isinstance(header["groups"], list):
            return None
        return _Dictionary(blob, end + 1, header)
    except (ValueError, KeyError, TypeError):
        return None


def word_list_path() -> Path:
    """jieba's shipped word list, found without importing jieba (that costs ~20 MiB)."""

    spec = find_spec("jieba")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("jieba is not installed", name="jieba")
    return Path(next(iter(spec.submodule_search_locations))) / "dict.txt"


def read_word_list(source: Path) -> tuple[dict[str, int], int]:
    """(word and prefix → frequency, total) as jieba's `gen_pfdict` builds them."""
    freq: dict[str, int] = {}
    total = 0
    with open(source, "rb") as lines:
        for number, line in enumerate(lines, 1):
            text = line.strip().decode("utf-8")
            try:
                word, count = text.split(" ")[:2]
                count = int(count)
            except ValueError:
                raise ValueError(f"invalid dictionary entry in {source} at line {number}: {text}") from None
            freq[word] = count
            total += count
            for end in range(1, len(word)):
                freq.setdefault(word[:end], 0)
    return freq, total


def load_dictionary(source: Path) -> _Dictionary:
    """The compact dictionary of the word list `source`: read from the user cache when kept
    there for this very list, else built (~1 s) and kept."""
    stat = source.stat()
    stamp = [_DICTIONARY_FORMAT, str(source), stat.st_size, stat.st_mtime_ns]
    kept = user_cache_dir() / _KEPT_NAME
    opened = _open_kept(kept, stamp)
    if opened is not None:
        return opened
    data = _compact(*read_word_list(source), stamp)
    if keep_derived(kept, data):
        opened = _open_kept(kept, stamp)
        if opened is not None:
            return opened
    return _open(_Blob(data))


def _open_kept(path: Path, stamp: list) -> _Dictionary | None:
    try:
        kept = open(path, "rb")  # noqa: SIM115  # held open: the blocks are read from it
    except OSError:
        return None
    try:
        opened = _open(_Blob(file=kept))
    except OSError:
        opened = None
    if opened is None or opened.stamp != stamp:
        kept.close()
        return None
    return opened


# jieba's own patterns: runs of these characters are cut by the dictionary; the rest is split
# at whitespace and then character by character.
_HAN = re.compile("([\u4e00-\u9fd5a-zA-Z0-9+#&\\._%\\-]+)")
_SKIP = re.compile("(\r\n|\\s)")
_ENGLISH = re.compile("[a-zA-Z0-9]")


class Segmenter:
    """jieba's `cut(text, HMM=False)` over a compact dictionary, with words added on top."""

    def __init__(self, dictionary: _Dictionary):
        self._dictionary = dictionary
        self._added: dict[str, int] = {}  # added words
        self._prefixes: set[str] = set()  # their prefixes: 0 where the dictionary has neither
        self.total = dictionary.total

    def get(self, key: str) -> int | None:
        found = self._added.get(key)
        if found is None:
            found = self._dictionary.get(key)
        if found is None and key in self._prefixes:
            return 0
        return found

    def add_word(self, word: str, freq: int) -> None:
        """As jieba's `add_word`: the word's frequency set, the total grown, its prefixes known.
        The dictionary is not searched here: thousands of names would touch most of its pages."""
        self._added[word] = freq
        self.total += freq
        self._prefixes.update(word[:end] for end in range(1, len(word)))

    def cut(self, text: str) -> Iterable[str]:
        for block in _HAN.split(text):
            if not block:
                continue
            if _HAN.match(block):
                yield from self._cut_block(block)
                continue
            for piece in _SKIP.split(block):
                if _SKIP.match(piece):
                    yield piece
                else:
                    yield from piece

    def _cut_block(self, text: str) -> Iterable[str]:
        route = self._route(text)
        x, buf = 0, ""
        while x < len(text):
            y = route[x][1] + 1
            word = text[x:y]
            if len(word) == 1 and _ENGLISH.match(word):
                buf += word
            else:
                if buf:
                    yield buf
                    buf = ""
                yield word
            x = y
        if buf:
            yield buf

    def _route(self, text: str) -> dict[int, tuple[float, int]]:
        """jieba's `get_DAG` and `calc`: for each start, the best (log probability, last index)."""
        n = len(text)
        dag: dict[int, list[tuple[int, int]]] = {}
        for k in range(n):
            ends, i, found = [], k, self.get(text[k])
            while found is not None:
                if found:
                    ends.append((i, found))
                i += 1
                found = self.get(text[k : i + 1]) if i < n else None
            dag[k] = ends or [(k, 0)]
        route = {n: (0.0, 0)}
        logtotal = log(self.total)
        for idx in range(n - 1, -1, -1):
            route[idx] = max((log(freq or 1) - logtotal + route[x + 1][0], x) for x, freq in dag[idx])
        return route


_load_lock = threading.Lock()  # the REPL's warm-up opens it in the background; one load, not two
_loaded: Segmenter | None = None


def _segmenter() -> Segmenter:
    global _loaded
    with _load_lock:
        if _loaded is None:
            segmenter = Segmenter(load_dictionary(word_list_path()))
            for word in vocabulary():
                segmenter.add_word(word, freq=10_000)
            _loaded = segmenter
        return _loaded


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
    segmenter = _segmenter()
    for name in fresh:
        segmenter.add_word(name, freq=5_000)
        _ADDED.add(name)
    segment.cache_clear()


@lru_cache(maxsize=256)
def segment(text: str) -> Words:
    """The word starts of `text` (dictionary words only: no guessing of unknown words)."""
    words = tuple(_segmenter().cut(text))
    starts, offset = [], 0
    for word in words:
        starts.append(offset)
        offset += len(word)
    return Words(words, tuple(starts), len(text))


def dictionary_kept() -> bool:
    """Whether an earlier process kept the compact dictionary (else opening it builds it, ~1 s)."""
    return (user_cache_dir() / _KEPT_NAME).is_file()


def segmenter_loaded() -> bool:
    return _loaded is not None


def warm() -> None:
    """Open the dictionary now (the REPL does, in the background, once the prompt is drawn)."""
    _segmenter().get("的")  # the first lookup also imports the UTF-32 codec


def frequency(word: str) -> int:
    """How common the segmenter's dictionary says a word is (0 for an unknown word)."""
    return int(_segmenter().get(word) or 0)
