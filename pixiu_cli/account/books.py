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
from pixiu_cli.account.store import AccountStore, PortfolioStore
from pixiu_cli.home.handle import Home
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.vocabulary import DEFAULT_ACCOUNT
from pixiu_cli.market.handle import Market

if TYPE_CHECKING:
    from sqlite_utils import Database


class AccountBooks:
    """The account over `db`, valued by `cost_method`. The workspace hands it its home (one
    InvestorStore per workspace) and its market; built alone over a database (a test), it
    builds its own.

    `broker_account` narrows the books to one broker account (`narrowed`): the same
    derivation then reads only that account's fills and balances. The books of the whole
    home, of several accounts, derive each account and add them up (overview.py)."""

    def __init__(
        self,
        db: Database,
        cost_method: str = "diluted",
        *,
        home: Home | None = None,
        market: Market | None = None,
        broker_account: str | None = None,
    ):
        self.db = db
        self.cost_method = check_cost_method(cost_method)
        self.broker_account = broker_account
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
        return AccountStore(self.db, self.broker_account)

    @cached_property
    def portfolio(self) -> PortfolioStore:
        return PortfolioStore(self.db, self.broker_account)

    # the broker accounts -----------------------------------------------------------------------
    def narrowed(self, name: str | None) -> AccountBooks:
        """The books of the account named `name` (None: these books); an unknown name is
        refused in one line that lists the accounts."""
        if name is None or name == self.broker_account:
            return self
        names = self.store.account_names()
        if name not in names:
            raise RequestError(f"没有名为「{name}」的账户；现有账户：{'、'.join(names) or '无'}")
        return AccountBooks(self.db, self.cost_method, home=self.home, market=self.market, broker_account=name)

    @property
    def whole(self) -> AccountBooks:
        """The books of every account (the holding rows are the combined positions')."""
        if self.broker_account is None:
            return self
        return AccountBooks(self.db, self.cost_method, home=self.home, market=self.market)

    def default_account(self) -> str:
        """The account a trade told or a balance set without one goes to: the home's first."""
        names = self.store.account_names()
        return names[0] if names else DEFAULT_ACCOUNT

    def several(self) -> list[str]:
        """The accounts these books add up, one by one: every account of a home of several
        when the books are not narrowed to one; none otherwise (the books derive as they are)."""
        if self.broker_account is not None:
            return []
        names = self.store.account_names()
        return names if len(names) > 1 else []

    def holds_stated(self) -> bool:
        """A holding the user stated (not from fills) counts in the default account."""
        return self.broker_account is None or self.broker_account == self.default_account()
