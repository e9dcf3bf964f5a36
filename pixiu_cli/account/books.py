"""The account's books: its stores over the one database, the home (the stated holdings) and
the market (bars, corporate actions, securities) it is derived from, and the cost method it is
valued by — what every use case of the account works on. The workspace's handle
(handle.py `Account`) is these books with the derivation kept between reads; overview.py,
which that derivation calls, names its parameter by this type, so neither imports the other
round a circle."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from pixiu_cli.account.model import check_cost_method
from pixiu_cli.home.handle import Home
from pixiu_cli.market.handle import Market

if TYPE_CHECKING:
    from sqlite_utils import Database

    from pixiu_cli.account.store import AccountStore, PortfolioStore


class AccountBooks:
    """The account over `db`, valued by `cost_method`. The workspace hands it its home (one
    InvestorStore per workspace) and its market; built alone over a database (a test), it
    builds its own."""

    def __init__(
        self, db: Database, cost_method: str = "diluted", *, home: Home | None = None, market: Market | None = None
    ):
        self.db = db
        self.cost_method = check_cost_method(cost_method)
        if home is not None:
            self.home = home
        if market is not None:
            self.market = market

    @cached_property
    def home(self) -> Home:
        return Home(self.db)

    @cached_property
    def market(self) -> Market:
        return Market(self.db, home=self.home)

    @cached_property
    def store(self) -> AccountStore:
        from pixiu_cli.account.store import AccountStore

        return AccountStore(self.db)

    @cached_property
    def portfolio(self) -> PortfolioStore:
        from pixiu_cli.account.store import PortfolioStore

        return PortfolioStore(self.db)
