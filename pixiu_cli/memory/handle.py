"""The memory as the workspace hands it out (`ws.memory`): the notes, alerts and proposals
over the one database, for the areas and surfaces that ask of the memory. What the memory's
use cases read of other areas — the holdings (the home), the bars, names and alert rules (the
market), the trades a proposal records (the account) — comes from the handles the composition
root hands in, so the workspace keeps one of each; a memory built alone builds its own."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from pixiu_cli.home.handle import Home
from pixiu_cli.market.handle import Market

if TYPE_CHECKING:  # also the store types other areas' signatures name: they import them from here
    from sqlite_utils import Database

    from pixiu_cli.account.handle import Account
    from pixiu_cli.home.handle import Home, InvestorStore
    from pixiu_cli.market.handle import Market
    from pixiu_cli.memory.store import MemoryStore


class Memory:
    def __init__(
        self, db: Database, *, home: Home | None = None, market: Market | None = None, account: Account | None = None
    ):
        self.db = db
        self._home, self._market, self._account = home, market, account

    @cached_property
    def store(self) -> MemoryStore:
        from pixiu_cli.memory.store import MemoryStore

        return MemoryStore(self.db)

    @cached_property
    def home(self) -> Home:
        if self._home is not None:
            return self._home

        return Home(self.db)

    @cached_property
    def market(self) -> Market:
        if self._market is not None:
            return self._market

        return Market(self.db, home=self.home)

    @cached_property
    def account(self) -> Account:
        if self._account is not None:
            return self._account
        from pixiu_cli.account.handle import Account

        return Account(self.db, home=self.home, market=self.market)

    @property
    def investor(self) -> InvestorStore:
        return self.home.investor

    def last_event_id(self) -> int:
        """The last memory event: a turn's proposals are the ones after it."""
        return self.store.last_event_id()

    def listing(self, *args, **kwargs):
        return self.store.listing(*args, **kwargs)
