"""The account as the workspace hands it out (`ws.account`): its stores over the one database,
and its derivation — what the other areas ask of the account instead of opening its store."""

from __future__ import annotations

from datetime import date, datetime
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # also the store types other areas' signatures name: they import them from here
    from sqlite_utils import Database

    from pixiu_cli.account.overview import TradeHistory
    from pixiu_cli.account.store import AccountStore, PortfolioStore
    from pixiu_cli.account.valuation import AccountView


class Account:
    """The account over `db`, valued by `cost_method`. `read` derives the account again only
    when the ledger, the holdings, the stored market data or the last closed session changed:
    the context block asks every turn."""

    def __init__(self, db: Database, cost_method: str = "diluted"):
        from pixiu_cli.account.overview import check_cost_method

        self._db = db
        self.cost_method = check_cost_method(cost_method)
        self._key: tuple | None = None
        self._view: AccountView | None = None

    @cached_property
    def store(self) -> AccountStore:
        from pixiu_cli.kernel.store.shared_stores import stores_of

        return stores_of(self._db).account

    @cached_property
    def portfolio(self) -> PortfolioStore:
        from pixiu_cli.kernel.store.shared_stores import stores_of

        return stores_of(self._db).portfolio

    def read(self, now: datetime) -> AccountView:
        from pixiu_cli.account.overview import read_account
        from pixiu_cli.kernel.store.shared_stores import stores_of
        from pixiu_cli.market.calendar import last_complete_session

        stores = stores_of(self._db)
        key = (
            stores.investor.portfolio_version(),
            self.store.version(),
            stores.market.version(),
            last_complete_session(now),
            now.date(),
        )
        if key != self._key or key[0] is None:
            self._view = read_account(self._db, now, self.cost_method)
            self._key = key
        return self._view

    def history(
        self, now: datetime, start: date | None, end: date | None, symbols: list[str] | None = None, limit: int = 12
    ) -> TradeHistory:
        """The trade history for the context block (`trade_history`)."""
        from pixiu_cli.account.overview import trade_history

        return trade_history(self._db, now, start, end, symbols, limit)
