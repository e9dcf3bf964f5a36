"""A statement's bytes as text. Broker clients write GBK (or GB18030), UTF-8 with or
without a byte-order mark, and UTF-16 (通达信's "Unicode" export); the bytes say which."""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path

from pixiu_cli.account.statements.rows import StatementError


def _utf16_without_bom(data: bytes) -> str | None:
    """UTF-16 without a BOM: every other byte of ASCII text is zero."""
    sample = data[:400]
    if len(sample) < 4:
        return None
    even, odd = sample[0::2].count(0), sample[1::2].count(0)
    half = len(sample) // 4
    if odd > half and even == 0:
        return "utf-16-le"
    if even > half and odd == 0:
        return "utf-16-be"
    return None


_UNKNOWN = "无法识别文件编码（试过 UTF-8、UTF-16、GBK/GB18030）：请在券商软件里另存为 CSV 或 TXT"


def _candidates(head: bytes) -> list[str]:
    """The encodings the first bytes allow, the likeliest first: a byte-order mark decides
    alone; else UTF-16 when every other byte is zero, then UTF-8, then GB18030 (a superset of GBK)."""
    if head.startswith(codecs.BOM_UTF8):
        return ["utf-8-sig"]
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return ["utf-16"]
    wide = _utf16_without_bom(head)
    return ([wide] if wide else []) + ["utf-8", "gb18030"]


def decode(data: bytes) -> str:
    """The bytes as text, in the first of their candidate encodings that reads them whole."""
    for encoding in _candidates(data):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise StatementError(_UNKNOWN)


_BLOCK = 1 << 20


def _decodes(path: Path, encoding: str) -> bool:
    decoder = codecs.getincrementaldecoder(encoding)("strict")
    try:
        with open(path, "rb") as f:
            while block := f.read(_BLOCK):
                decoder.decode(block)
        decoder.decode(b"", final=True)
    except (UnicodeDecodeError, UnicodeError):
        return False
    return True


def encoding_of(path: Path) -> str:
    """The encoding `decode` reads the file's bytes in, found a block at a time (the file is
    never held whole)."""
    with open(path, "rb") as f:
        head = f.read(4096)
    for encoding in _candidates(head):
        if _decodes(path, encoding):
            return encoding
    raise StatementError(_UNKNOWN)


def text_lines(path: Path, encoding: str) -> Iterator[str]:
    """The file's lines as `str.splitlines` cuts its whole text, read a line at a time."""
    with open(path, encoding=encoding, newline="") as f:
        for physical in f:
            yield from physical.splitlines()
