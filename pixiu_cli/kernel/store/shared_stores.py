"""The stores over one database, each built once, on first use, and then shared: app.py's
workspace holds the `Stores` of its database, and a service or a tool handed that database
takes its stores from `stores_of(db)` — the same objects — instead of building its own (an
InvestorStore keeps its memo of the portfolio between reads; a store built for one call
throws it away). Each store's module is imported when the store is first asked for, so a
command loads only the stores it uses."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

if TYPE_CHECKING:
    from sqlite_utils import Database

    from pixiu_cli.account.store import AccountStore, PortfolioStore
    from pixiu_cli.brief.store import BriefStore, PushLog
    from pixiu_cli.evals.store import EvalRunStore
    from pixiu_cli.home.store import InvestorStore
    from pixiu_cli.market.analytics.store import AnalyticsStore
    from pixiu_cli.market.fundamentals.store import FundamentalsStore
    from pixiu_cli.market.news.store import NewsStore
    from pixiu_cli.market.review.store import MarketReviewStore
    from pixiu_cli.market.store import MarketStore, SecurityMaster
    from pixiu_cli.mcp.store import McpCallLog
    from pixiu_cli.memory.store import MemoryStore


class Stores:
    """Every store over `db` but the conversations' (that one takes the app's clock)."""

    def __init__(self, db: Database):
        self.db = db

    @cached_property
    def investor(self) -> InvestorStore:
        from pixiu_cli.home.store import InvestorStore

        return InvestorStore(self.db)

    @cached_property
    def account(self) -> AccountStore:
        from pixiu_cli.account.store import AccountStore

        return AccountStore(self.db)

    @cached_property
    def market(self) -> MarketStore:
        from pixiu_cli.market.store import MarketStore

        return MarketStore(self.db)

    @cached_property
    def securities(self) -> SecurityMaster:
        from pixiu_cli.market.store import SecurityMaster

        return SecurityMaster(self.db)

    @cached_property
    def memory(self) -> MemoryStore:
        from pixiu_cli.memory.store import MemoryStore

        return MemoryStore(self.db)

    @cached_property
    def portfolio(self) -> PortfolioStore:
        from pixiu_cli.account.store import PortfolioStore

        return PortfolioStore(self.db)

    @cached_property
    def analytics(self) -> AnalyticsStore:
        from pixiu_cli.market.analytics.store import AnalyticsStore

        return AnalyticsStore(self.db)

    @cached_property
    def fundamentals(self) -> FundamentalsStore:
        from pixiu_cli.market.fundamentals.store import FundamentalsStore

        return FundamentalsStore(self.db)

    @cached_property
    def market_review(self) -> MarketReviewStore:
        from pixiu_cli.market.review.store import MarketReviewStore

        return MarketReviewStore(self.db)

    @cached_property
    def briefs(self) -> BriefStore:
        from pixiu_cli.brief.store import BriefStore

        return BriefStore(self.db)

    @cached_property
    def news(self) -> NewsStore:
        from pixiu_cli.market.news.store import NewsStore

        return NewsStore(self.db)

    @cached_property
    def push_log(self) -> PushLog:
        from pixiu_cli.brief.store import PushLog

        return PushLog(self.db)

    @cached_property
    def mcp_calls(self) -> McpCallLog:
        from pixiu_cli.mcp.store import McpCallLog

        return McpCallLog(self.db)

    @cached_property
    def eval_runs(self) -> EvalRunStore:
        from pixiu_cli.evals.store import EvalRunStore

        return EvalRunStore(self.db)


# One Stores per open database, dropped with it.
_OF: WeakKeyDictionary[Database, Stores] = WeakKeyDictionary()


def stores_of(db: Database) -> Stores:
    """The stores over `db`, built once per database (see the module docstring)."""
    stores = _OF.get(db)
    if stores is None:
        stores = _OF[db] = Stores(db)
    return stores
