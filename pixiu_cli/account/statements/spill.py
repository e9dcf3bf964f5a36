"""Rows put in any order and taken out sorted, in bounded memory: each run of RUN rows is
sorted and written to a temporary file in blocks, and the runs are merged a block of each
at a time. A statement of a million rows is sorted holding a few thousand."""

from __future__ import annotations

import heapq
import marshal
import tempfile
from collections.abc import Callable, Iterator
from typing import IO

RUN = 50_000
_BLOCK = 1_000


class SortedSpill:
    def __init__(self, key: Callable[[tuple], tuple], run: int | None = None):
        self.key, self.run = key, run or RUN
        self._rows: list[tuple] = []
        self._file: IO[bytes] | None = None
        self._runs: list[int] = []  # where each spilled run starts in the file

    def add(self, row: tuple) -> None:
        """`row` holds only what marshal writes: str, int, float, bool, None, tuples."""
        self._rows.append(row)
        if len(self._rows) >= self.run:
            self._spill()

    def _spill(self) -> None:
        if self._file is None:
            self._file = tempfile.TemporaryFile()
        self._rows.sort(key=self.key)
        self._file.seek(0, 2)
        self._runs.append(self._file.tell())
        for start in range(0, len(self._rows), _BLOCK):
            marshal.dump(self._rows[start : start + _BLOCK], self._file)
        marshal.dump(None, self._file)
        self._rows = []

    def _read(self, offset: int) -> Iterator[tuple]:
        position = offset
        while True:
            self._file.seek(position)
            block = marshal.load(self._file)
            position = self._file.tell()  # the other runs move the shared file between blocks
            if block is None:
                return
            yield from block

    def __iter__(self) -> Iterator[tuple]:
        self._rows.sort(key=self.key)
        if not self._runs:
            yield from self._rows
            return
        yield from heapq.merge(*(self._read(o) for o in self._runs), iter(self._rows), key=self.key)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
