"""The memory as the workspace hands it out (`ws.memory`): the notes, alerts and proposals
over the one database, for the areas and surfaces that ask of the memory."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # also the store types other areas' signatures name: they import them from here
    from sqlite_utils import Database

    from pixiu_cli.memory.store import MemoryStore


class Memory:
    def __init__(self, db: Database):
        self._db = db

    @cached_property
    def store(self) -> MemoryStore:
        from pixiu_cli.kernel.store.shared_stores import stores_of

        return stores_of(self._db).memory

    def last_event_id(self) -> int:
        """The last memory event: a turn's proposals are the ones after it."""
        return self.store.last_event_id()

    def listing(self, *args, **kwargs):
        return self.store.listing(*args, **kwargs)
