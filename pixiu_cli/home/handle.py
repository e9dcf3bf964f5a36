"""The home as the workspace hands it out (`ws.home`): the investor's data set as one document
over the one database (home/store.py's InvestorStore: the holdings, profiles and signals the
document carries), read by the areas through this handle rather than by opening the store."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from pixiu_cli.home.store import InvestorStore

if TYPE_CHECKING:  # also the store types other areas' signatures name: they import them from here
    from sqlite_utils import Database

    from pixiu_cli.home.store import InvestorStore


class Home:
    """The home over `db`; `investor`: the InvestorStore already open over it (the agent's,
    which the demo was re-dated through), else one is built on first use."""

    def __init__(self, db: Database, *, investor: InvestorStore | None = None):
        self.db = db
        if investor is not None:
            self.investor = investor

    @cached_property
    def investor(self) -> InvestorStore:
        """The one InvestorStore of the workspace: it keeps its memo of the portfolio between reads."""

        return InvestorStore(self.db)
