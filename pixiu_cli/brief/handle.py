"""The brief as the workspace hands it out (`ws.brief`): the stored briefs and the push log
over the one database."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlite_utils import Database

    from pixiu_cli.brief.store import BriefStore, PushLog


class Brief:
    def __init__(self, db: Database):
        self._db = db

    @cached_property
    def briefs(self) -> BriefStore:
        from pixiu_cli.kernel.store.shared_stores import stores_of

        return stores_of(self._db).briefs

    @cached_property
    def push_log(self) -> PushLog:
        from pixiu_cli.kernel.store.shared_stores import stores_of

        return stores_of(self._db).push_log
