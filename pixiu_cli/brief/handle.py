"""The brief as the workspace hands it out (`ws.brief`): the stored briefs and the push log
over the one database, and the account and the market the brief's facts are read from."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlite_utils import Database

    from pixiu_cli.account.handle import Account
    from pixiu_cli.brief.store import BriefStore, PushLog
    from pixiu_cli.home.handle import Home
    from pixiu_cli.market.handle import Market


class Brief:
    """The brief over `db`. The workspace hands it its account (which carries the home and
    the market); built alone over a database (a test), it builds an account of its own."""

    def __init__(self, db: Database, *, account: Account | None = None):
        self.db = db
        if account is not None:
            self.account = account

    @cached_property
    def account(self) -> Account:
        from pixiu_cli.account.handle import Account

        return Account(self.db)

    @property
    def home(self) -> Home:
        return self.account.home

    @property
    def market(self) -> Market:
        return self.account.market

    @cached_property
    def briefs(self) -> BriefStore:
        from pixiu_cli.brief.store import BriefStore

        return BriefStore(self.db)

    @cached_property
    def push_log(self) -> PushLog:
        from pixiu_cli.brief.store import PushLog

        return PushLog(self.db)
