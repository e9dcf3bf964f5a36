"""The account as the workspace hands it out (`ws.account`): its books (books.py: the stores,
the home and the market it is derived from) and its derivation, kept between reads — what the
use cases of the account take, and what the other areas ask of the account instead of opening
its store."""

from __future__ import annotations

from datetime import date, datetime
from typing import TYPE_CHECKING

from pixiu_cli.account.books import AccountBooks
from pixiu_cli.market.calendar import last_complete_session

if TYPE_CHECKING:  # also the store types other areas' signatures name: they import them from here
    from sqlite_utils import Database

    from pixiu_cli.account.overview import TradeHistory
    from pixiu_cli.account.performance import Performance
    from pixiu_cli.account.store import AccountStore, PortfolioStore  # noqa: F401
    from pixiu_cli.account.valuation import AccountView
    from pixiu_cli.home.handle import Home
    from pixiu_cli.market.handle import Market


class Account(AccountBooks):
    """`read` derives the account again only when the ledger, the holdings, the stored market
    data or the last closed session changed: the context block asks every turn."""

    def __init__(
        self, db: Database, cost_method: str = "diluted", *, home: Home | None = None, market: Market | None = None
    ):
        super().__init__(db, cost_method, home=home, market=market)
        self._kept: dict[str | None, tuple[tuple, AccountView]] = {}  # by the account read (None: all)

    def read(self, now: datetime, account: str | None = None) -> AccountView:
        """The accounts combined, or (`account`, a name) that one; each kept on its own."""
        from pixiu_cli.account.overview import read_account

        key = (
            self.home.investor.portfolio_version(),
            self.store.version(),
            self.market.bars.version(),
            last_complete_session(now),
            now.date(),
        )
        kept = self._kept.get(account)
        if kept is None or key != kept[0] or key[0] is None:
            kept = (key, read_account(self, now, account))
            self._kept[account] = kept
        return kept[1]

    def history(
        self, now: datetime, start: date | None, end: date | None, symbols: list[str] | None = None, limit: int = 12
    ) -> TradeHistory:
        """The trade history for the context block (`trade_history`)."""
        from pixiu_cli.account.overview import trade_history

        return trade_history(self, now, start, end, symbols, limit)

    def performance(self, now: datetime, words: str | None = None, **period) -> Performance:
        """The returns over the period the words (or start=/end=) name (`account_performance`):
        what the context block, the brief and the model's tools read."""
        from pixiu_cli.account.performance import account_performance

        return account_performance(self, now, words, **period)
