"""A call's request body stored once and compactly, yet byte-exact. Each request is
mostly the previous request of its conversation plus what was appended (the tools and
parameters follow the messages, so the change sits between a shared prefix and a shared
suffix): it is stored as that previous call's id, the lengths of the shared prefix and
suffix (in UTF-8 bytes) and the zlib-packed middle. The middle is packed with the
WINDOW bytes of the previous request before it as zlib's dictionary (request_dict: how many):
what a turn appends (a tool result, a context block) mostly repeats something said a few
turns earlier, which a middle packed alone cannot refer to. Every MAX_DEPTH links a call is
stored whole, so reading one request never walks a long chain."""

from __future__ import annotations

import sqlite3
import zlib
from dataclasses import dataclass

MAX_DEPTH = 16
WINDOW = 32 * 1024  # zlib looks back this far, so a longer dictionary adds nothing
COLUMNS = "id, request_json, request_z, request_base, request_prefix, request_suffix, request_dict"


@dataclass(frozen=True)
class Packed:
    blob: bytes
    base: int | None = None
    prefix: int = 0
    suffix: int = 0
    depth: int = 0
    dictionary: int = 0

    def columns(self) -> dict:
        return {
            "request_z": self.blob,
            "request_base": self.base,
            "request_prefix": self.prefix,
            "request_suffix": self.suffix,
            "request_depth": self.depth,
            "request_dict": self.dictionary or None,
        }


def _shared(a: bytes, b: bytes) -> tuple[int, int]:
    limit = min(len(a), len(b))
    prefix = 0
    step = 4096
    while step:  # galloping compare: whole blocks first, then narrower
        while prefix + step <= limit and a[prefix : prefix + step] == b[prefix : prefix + step]:
            prefix += step
        step //= 8
    limit -= prefix
    suffix = 0
    while suffix < limit and a[len(a) - 1 - suffix] == b[len(b) - 1 - suffix]:
        suffix += 1
    return prefix, suffix


def pack(text: str, base: tuple[int, str, int] | None = None) -> Packed:
    """`base` is (call id, exact request, depth) of the previous finished call, or None."""
    data = text.encode("utf-8")
    if base is None or base[2] + 1 >= MAX_DEPTH:
        return Packed(zlib.compress(data, 6))
    base_id, base_text, depth = base
    old = base_text.encode("utf-8")
    prefix, suffix = _shared(old, data)
    window = old[max(prefix - WINDOW, 0) : prefix]
    packer = zlib.compressobj(6, zdict=window) if window else zlib.compressobj(6)
    blob = packer.compress(data[prefix : len(data) - suffix]) + packer.flush()
    return Packed(blob, base_id, prefix, suffix, depth + 1, len(window))


def unpack(row: dict, base_text: str | None) -> str:
    if row.get("request_base") is None:
        return zlib.decompress(row["request_z"]).decode("utf-8")
    old = (base_text or "").encode("utf-8")
    window = row.get("request_dict") or 0  # 0: packed alone (rows written before dictionaries)
    prefix = row["request_prefix"]
    unpacker = zlib.decompressobj(zdict=old[prefix - window : prefix]) if window else zlib.decompressobj()
    middle = unpacker.decompress(row["request_z"]) + unpacker.flush()
    return (old[: row["request_prefix"]] + middle + old[len(old) - row["request_suffix"] :]).decode("utf-8")


def request_of(conn: sqlite3.Connection, row: dict, memo: dict[int, str] | None = None) -> str:
    """The exact request of a call row; `memo` (call id → text) makes reading a
    conversation's calls in order linear."""
    memo = {} if memo is None else memo
    if row.get("request_z") is None:  # written before requests were packed
        return row.get("request_json") or ""
    chain = [row]
    while chain[-1].get("request_base") is not None and chain[-1]["request_base"] not in memo:
        cursor = conn.execute(f"select {COLUMNS} from calls where id = ?", [chain[-1]["request_base"]])
        found = cursor.fetchone()
        if found is None:
            break
        chain.append(dict(zip([d[0] for d in cursor.description], found)))
    text = None
    for link in reversed(chain):
        base = link.get("request_base")
        text = (
            link.get("request_json") or ""
            if link.get("request_z") is None
            else unpack(link, memo.get(base) if base is not None else None)
        )
        if link.get("id") is not None:
            memo[link["id"]] = text
    return text
