"""DeepSeek's tokenizer.json run in Python, exactly as the `tokenizers` library runs it, from
a compact form of the file that loads in milliseconds.

The file's model is byte-level BPE with no normalizer: its added tokens are cut out of the
text first, the rest is split by the pre-tokenizer's three regexes in turn (each match
isolated), each piece's UTF-8 bytes start as one symbol each, and the pair of neighbours
with the lowest merge rank is merged (the leftmost of equal ones) until none is a merge.
The file's byte-to-character map only names the byte symbols in its vocabulary, so the
compact form keeps, per byte, its symbol's id, and per merge, the pair's ids and the merged
id; building it reads the 6 MB JSON once (~0.3 s). The cached file is a marshal header and
the two merge arrays after it, mapped, not read: a new question looks up a few hundred
merges, so only the pages its binary searches touch are ever in memory (~2 MB read whole).
tests/perf/test_tokenizer_parity.py compares ids with `tokenizers` on the same file."""

from __future__ import annotations

import heapq
import json
import marshal
import mmap
import re
import struct
import sys
from array import array
from bisect import bisect_left
from pathlib import Path

import regex

from pixiu_cli.kernel.resources import keep_derived, user_cache_dir

_FORMAT = 3  # bump when the compact form changes
_ID_BITS = 17  # every id of the file is below 2**17 (131,072): pairs pack into one int
_ID_MASK = (1 << _ID_BITS) - 1
_NO_MERGE = 1 << 62
# Characters `regex`'s Unicode tables assign but the tokenizer's do not (`tokenizers` runs
# the file's regexes with Oniguruma, whose tables are older): there they match no class of
# the pre-tokenizer, so the regexes see each as U+FDD0, a noncharacter, unassigned in every
# version. Found by comparing every assigned code point with `tokenizers` in a few contexts
# (benchmarks/tokenizer_unicode.py); tests/perf/test_tokenizer_parity.py checks the ranges.
_NEWER_RANGES = (
    "0558 058B-058C 05C8-05C9 1ACF-1AF0 208F 209D-209F 20C1-20C4 2B96 2E60-2E63 A7CE-A7CF "
    "A7D2 A7D4 A7DD A7E2 A7F1 AB6C-AB6D FBC3-FBD2 FD90-FD91 FDC8-FDCE 107BB-107BF "
    "10940-10959 10EC5-10EC7 10EC9-10EEE 10EF0-10EFB 11B0A 11B60-11B67 11DB0-11DDB "
    "11DF0-11DF1 16EA0-16EB8 16EBB-16ED3 16FF2-16FF3 187F8-187FF 18CD6-18CDA 18D09-18D20 "
    "18D80-18DF2 18E00-19191 191A0-191D2 1B123-1B128 1B168 1CCFA-1CCFC 1CEBA-1CED0 "
    "1CED2-1CED4 1CEDD-1CEFD 1D127-1D128 1D1EB-1D1FF 1D250-1D281 1D6A6 1DB00-1DB1C "
    "1DF1F-1DF24 1DF2B-1DF81 1DF90-1DF96 1DFCD-1DFFF 1E6C0-1E6DE 1E6E0-1E6F5 1E6FE-1E6FF "
    "1F1AE 1F6D8-1F6D9 1F777-1F77A 1F7DA-1F7DB 1F7F1-1F7FF 1F8D0-1F8D8 1FA54-1FA57 "
    "1FA8A-1FA8E 1FAC8 1FACC-1FACD 1FADD 1FAEA-1FAEB 1FAEF 1FAF9-1FAFA 1FBFA 2B73A-2B73F "
    "2B81E 2CEA2-2CEAD 323B0-33479 3D000-3FC3F "
)
_NEWER_THAN_TOKENIZER = re.compile(
    "[" + "".join("-".join(chr(int(code, 16)) for code in span.split("-")) for span in _NEWER_RANGES.split()) + "]"
)
# Past this many bytes a piece is merged through a heap: the plain scan is quadratic.
LONG_PIECE_BYTES = 256


def gpt2_byte_chars() -> list[str]:
    """The byte-level pre-tokenizer's character for each byte (GPT-2's map): printable
    Latin-1 bytes stand for themselves, the rest are shifted past U+0100 in order."""
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars, shifted = {}, 0
    for byte in range(256):
        if byte in kept:
            chars[byte] = chr(byte)
        else:
            chars[byte] = chr(256 + shifted)
            shifted += 1
    return [chars[byte] for byte in range(256)]


class CompactTables:
    """What encoding needs from tokenizer.json: per byte its symbol's id; the merges as
    `left << 17 | right` (sorted) and `rank << 17 | merged id`, two arrays of 64-bit ints
    (bytes, or a mapped file's memory); the added tokens as (text, id, matched before the
    normalizer) in the file's order; the pre-tokenizer's regexes."""

    def __init__(self, byte_ids: list[int], pairs: bytes, merged: bytes, added: list, patterns: list[str]):
        self.byte_ids, self.pairs, self.merged, self.added, self.patterns = byte_ids, pairs, merged, added, patterns

    @classmethod
    def from_tokenizer_json(cls, data: dict) -> CompactTables:
        _check_supported(data)
        vocab = data["model"]["vocab"]
        byte_ids = [vocab[char] for char in gpt2_byte_chars()]
        merges: dict[int, int] = {}
        for rank, merge in enumerate(data["model"]["merges"]):
            left, right = merge.split(" ") if isinstance(merge, str) else merge
            merges.setdefault(vocab[left] << _ID_BITS | vocab[right], rank << _ID_BITS | vocab[left + right])
        pairs = sorted(merges)
        added = [(t["content"], t["id"], not t["normalized"]) for t in data["added_tokens"]]
        patterns = [step["pattern"]["Regex"] for step in data["pre_tokenizer"]["pretokenizers"][:-1]]
        packed = array("q", pairs).tobytes(), array("q", [merges[p] for p in pairs]).tobytes()
        return cls(byte_ids, *packed, added, patterns)

    def dumps(self, stamp: str) -> bytes:
        """The header's length, the header (marshal), then the arrays at a multiple of 8."""
        header = marshal.dumps((_FORMAT, stamp, self.byte_ids, len(self.pairs), self.added, self.patterns))
        start = _arrays_at(len(header))
        return b"".join(
            (struct.pack("<Q", len(header)), header, bytes(start - 8 - len(header)), self.pairs, self.merged)
        )

    @classmethod
    def loads(cls, blob, stamp: str) -> CompactTables | None:
        """The tables saved under `stamp` in `blob` (bytes or a mapped file; the arrays are
        views of it), or None (another file, format, or damaged)."""
        try:
            (length,) = struct.unpack_from("<Q", blob)
            saved = marshal.loads(blob[8 : 8 + length])
        except (ValueError, EOFError, TypeError, struct.error):
            return None
        if not (isinstance(saved, tuple) and len(saved) == 6 and saved[:2] == (_FORMAT, stamp)):
            return None
        byte_ids, size, added, patterns = saved[2:]
        start = _arrays_at(length)
        if not isinstance(size, int) or size % 8 or len(blob) != start + 2 * size:
            return None
        view = memoryview(blob)
        return cls(byte_ids, view[start : start + size], view[start + size :], added, patterns)


def _arrays_at(header: int) -> int:
    return -(-(8 + header) // 8) * 8


class MergeRanks:
    """`get(left << 17 | right)` -> that merge's `rank << 17 | merged id`, or None. A binary
    search in the sorted arrays at first (loading is free: a new question needs a few hundred
    lookups), a dict once enough text was merged to pay the ~30 ms of building it."""

    DICT_AFTER_LOOKUPS = 30_000

    def __init__(self, pairs: bytes, merged: bytes):
        # views, not copies: of a mapped file, only the pages searched are read
        self._pairs, self._merged = memoryview(pairs).cast("B").cast("q"), memoryview(merged).cast("B").cast("q")
        self._dict: dict[int, int] | None = None
        self.lookups = 0

    def getter(self, expected_lookups: int):
        """The fastest lookup for a piece about to need `expected_lookups` of them."""
        self.lookups += expected_lookups
        if self._dict is None and self.lookups > self.DICT_AFTER_LOOKUPS:
            self._dict = dict(zip(self._pairs, self._merged))
        return self._dict.get if self._dict is not None else self._search

    def _search(self, pair: int, default: int | None = None) -> int | None:
        at = bisect_left(self._pairs, pair)
        if at < len(self._pairs) and self._pairs[at] == pair:
            return self._merged[at]
        return default


def _check_supported(data: dict) -> None:
    """The compact form reproduces this kind of file only: refuse another rather than
    count it wrongly."""
    model, steps = data["model"], data["pre_tokenizer"]["pretokenizers"]
    supported = (
        model["type"] == "BPE"
        and not model.get("ignore_merges")
        and model.get("dropout") is None
        and not (model.get("continuing_subword_prefix") or model.get("end_of_word_suffix"))
        and not (data.get("normalizer") or {}).get("normalizers")
        and steps[-1]["type"] == "ByteLevel"
        and not (steps[-1]["add_prefix_space"] or steps[-1]["use_regex"])
        and all(s["type"] == "Split" and s["behavior"] == "Isolated" and not s["invert"] for s in steps[:-1])
        and max([*model["vocab"].values(), *(t["id"] for t in data["added_tokens"])]) <= _ID_MASK
    )
    if not supported:
        raise ValueError(
            "tokenizer.json is not a byte-level BPE of the kind pixiu_cli/conversation/tokenizer/bpe.py runs"
        )


def load_tables(tokenizer_json: Path, cache_dir: Path | None) -> CompactTables:
    """The compact tables of `tokenizer_json`, from `cache_dir` when saved there for this very
    file (its size and mtime), else built from it and saved (where the disk allows)."""
    info = tokenizer_json.stat()
    stamp = f"{tokenizer_json.resolve()}:{info.st_size}:{info.st_mtime_ns}:{sys.byteorder}"
    cached = cache_dir / "deepseek_bpe.marshal" if cache_dir else None
    if cached is not None:
        tables = _mapped(cached, stamp)
        if tables is not None:
            return tables
    with tokenizer_json.open("rb") as f:
        tables = CompactTables.from_tokenizer_json(json.load(f))
    if cached is not None:
        keep_derived(cached, tables.dumps(stamp))  # refused: built again next time
    return tables


def _mapped(path: Path, stamp: str) -> CompactTables | None:
    """The tables saved at `path`, its arrays left in the mapped file (read only: a rebuild
    replaces the file, never writes into it), or None."""
    try:
        with path.open("rb") as handle:
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # absent, empty, or a system that cannot map it
        return None
    tables = CompactTables.loads(mapped, stamp)
    if tables is None:
        mapped.close()
    return tables


def default_cache_dir() -> Path:
    return user_cache_dir()


class ByteLevelBPE:
    """encode(text) -> the ids `tokenizers` gives for it (special tokens as they appear in
    the text, none added). Each piece's ids are remembered: texts repeat most pieces."""

    MEMO_PIECES = 100_000

    def __init__(self, tables: CompactTables):

        self._byte_ids, self._merges = tables.byte_ids, MergeRanks(tables.pairs, tables.merged)
        self._splits = [regex.compile(pattern) for pattern in tables.patterns]
        # Those matched before the normalizer first, then the others (as `tokenizers` does).
        self._added = [
            AddedTokens({text: i for text, i, raw in tables.added if raw is first}) for first in (True, False)
        ]
        self._memo: dict[str, list[int]] = {}

    def encode(self, text: str) -> list[int]:
        ids: list[int] = []
        for piece, added_id in self._without_added(text):
            if added_id is not None:
                ids.append(added_id)
            else:
                for token in self._pre_tokens(piece):
                    ids.extend(self._piece_ids(token))
        return ids

    def _without_added(self, text: str) -> list[tuple[str, int | None]]:
        pieces: list[tuple[str, int | None]] = [(text, None)]
        for added in self._added:
            pieces = [
                cut for piece, known in pieces for cut in ([(piece, known)] if known is not None else added.cut(piece))
            ]
        return pieces

    def _pre_tokens(self, text: str) -> list[str]:
        """The text's pieces after the pre-tokenizer's splits, each applied to every piece of
        the one before (as `tokenizers` does: a piece's end is the end of the string for a
        lookahead, which `endpos` gives). The regexes run over `probe`: the text with
        characters the tokenizer's Unicode tables lack made unassigned ones."""
        probe = _NEWER_THAN_TOKENIZER.sub("\ufdd0", text) if _NEWER_THAN_TOKENIZER.search(text) else text
        spans = [(0, len(text))]
        for split in self._splits:
            spans = [part for begin, end in spans for part in _isolated(split, probe, begin, end)]
        return [text[begin:end] for begin, end in spans]

    def _piece_ids(self, piece: str) -> list[int]:
        known = self._memo.get(piece)
        if known is None:
            symbols = [self._byte_ids[b] for b in piece.encode("utf-8", "surrogatepass")]
            merge = merge_scan if len(symbols) <= LONG_PIECE_BYTES else merge_heap
            known = merge(symbols, self._merges.getter(2 * len(symbols)))
            if len(symbols) > LONG_PIECE_BYTES:  # rare, and a memo of them would grow with the text
                return known
            if len(self._memo) >= self.MEMO_PIECES:
                self._memo.clear()
            self._memo[piece] = known
        return known


class AddedTokens:
    """Cuts a text at these added tokens, each match the leftmost and then the longest (what
    `tokenizers`' Aho-Corasick does); found from their first characters, as a regex of 1,283
    alternatives takes ~0.2 s to compile."""

    def __init__(self, ids: dict[str, int]):
        self._ids = ids
        self._lengths = sorted({len(text) for text in ids}, reverse=True)
        self._starts = re.compile("[" + "".join(sorted({re.escape(text[0]) for text in ids})) + "]") if ids else None

    def cut(self, text: str) -> list[tuple[str, int | None]]:
        """(piece, None) for text between added tokens, (token, its id) for each of them."""
        out: list[tuple[str, int | None]] = []
        done = at = 0
        while self._starts is not None and (start := self._starts.search(text, at)) is not None:
            at = start.start()
            token = next((text[at : at + n] for n in self._lengths if text[at : at + n] in self._ids), None)
            if token is None:
                at += 1
                continue
            if at > done:
                out.append((text[done:at], None))
            out.append((token, self._ids[token]))
            done = at = at + len(token)
        if done < len(text):
            out.append((text[done:], None))
        return out


def _isolated(split, text: str, start: int, stop: int) -> list[tuple[int, int]]:
    """`tokenizers`' Split with behaviour Isolated on text[start:stop]: every match a piece,
    and every stretch between matches another."""
    out = []
    for match in split.finditer(text, start, stop):
        begin, end = match.span()
        if begin > start:
            out.append((start, begin))
        if end > begin:
            out.append((begin, end))
        start = end
    if start < stop:
        out.append((start, stop))
    return out


def merge_scan(symbols: list[int], get) -> list[int]:
    """BPE on a short piece: the lowest-ranked pair (leftmost of equal ones) merged while
    any pair is a merge; each step rescans the pairs' ranks (in C: min and index)."""
    if len(symbols) < 2:
        return symbols
    ranks = [get(a << _ID_BITS | b, _NO_MERGE) for a, b in zip(symbols, symbols[1:])]
    while ranks:
        best = min(ranks)
        if best == _NO_MERGE:
            break
        i = ranks.index(best)
        symbols[i] = best & _ID_MASK
        del symbols[i + 1]
        del ranks[i]
        if i < len(ranks):
            ranks[i] = get(symbols[i] << _ID_BITS | symbols[i + 1], _NO_MERGE)
        if i:
            ranks[i - 1] = get(symbols[i - 1] << _ID_BITS | symbols[i], _NO_MERGE)
    return symbols


def merge_heap(symbols: list[int], get) -> list[int]:
    """The same merges in the same order for a long piece, in O(n log n): candidate pairs in a
    heap ordered by (rank, position), symbols in a linked list; a popped pair whose symbols
    changed since it was pushed is skipped."""

    n = len(symbols)
    ids, nxt, prev = list(symbols), list(range(1, n + 1)), list(range(-1, n - 1))
    heap = [(rank, i) for i in range(n - 1) if (rank := get(ids[i] << _ID_BITS | ids[i + 1])) is not None]
    heapq.heapify(heap)
    while heap:
        rank, i = heapq.heappop(heap)
        j = nxt[i]
        if ids[i] < 0 or j >= n or get(ids[i] << _ID_BITS | ids[j]) != rank:
            continue  # stale: a symbol of this pair was merged into another since
        ids[i], ids[j] = rank & _ID_MASK, -1
        nxt[i] = nxt[j]
        if nxt[i] < n:
            prev[nxt[i]] = i
            if (right := get(ids[i] << _ID_BITS | ids[nxt[i]])) is not None:
                heapq.heappush(heap, (right, i))
        if prev[i] >= 0 and (left := get(ids[prev[i]] << _ID_BITS | ids[i])) is not None:
            heapq.heappush(heap, (left, prev[i]))
    return [token for token in ids if token >= 0]
