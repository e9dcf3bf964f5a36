"""The JSON texts every turn stores beside its request (the messages it adds to the history,
the summary of its context block) packed with zlib against a shared dictionary: they are a
few kilobytes each, too short for zlib to find much to reuse within one text, but most of
what they repeat (the block's frame, section titles, JSON keys of the block summary and of a
holdings result) is the same in every turn. The dictionary is a shipped file that never
changes once released; each blob starts with the number of its dictionary, so a later
dictionary is a new file and every row written with an older one still reads."""

from __future__ import annotations

import zlib
from functools import cache

from pixiu_cli.kernel.resources import data_dir

VERSION = 1


@cache
def dictionary(version: int = VERSION) -> bytes:
    return (data_dir() / "store" / f"dictionary-{version}.txt").read_bytes()


def pack_text(text: str) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, 15, 9, zlib.Z_DEFAULT_STRATEGY, dictionary())
    return bytes([VERSION]) + packer.compress(text.encode("utf-8")) + packer.flush()


def unpack_text(blob: bytes) -> str:
    unpacker = zlib.decompressobj(15, dictionary(blob[0]))
    return (unpacker.decompress(blob[1:]) + unpacker.flush()).decode("utf-8")


def text_of(packed: bytes | None, plain: str | None) -> str | None:
    """A column pair as read: the packed blob, else the plain text of a row written before."""
    return unpack_text(packed) if packed is not None else plain
