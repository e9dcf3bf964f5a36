"""The market as the workspace hands it out (`ws.market`): bars, the security list and what is
computed or gathered from them, each store over the one database, built on first use."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # also the store types other areas' signatures name: they import them from here
    from sqlite_utils import Database

    from pixiu_cli.market.analytics.store import AnalyticsStore
    from pixiu_cli.market.fundamentals.store import FundamentalsStore
    from pixiu_cli.market.news.store import NewsStore
    from pixiu_cli.market.review.store import MarketReviewStore
    from pixiu_cli.market.store import MarketStore, SecurityMaster


class Market:
    def __init__(self, db: Database):
        self._db = db

    @cached_property
    def _stores(self):
        from pixiu_cli.kernel.store.shared_stores import stores_of

        return stores_of(self._db)

    @property
    def bars(self) -> MarketStore:
        return self._stores.market

    @property
    def securities(self) -> SecurityMaster:
        return self._stores.securities

    @property
    def analytics(self) -> AnalyticsStore:
        return self._stores.analytics

    @property
    def fundamentals(self) -> FundamentalsStore:
        return self._stores.fundamentals

    @property
    def news(self) -> NewsStore:
        return self._stores.news

    @property
    def review(self) -> MarketReviewStore:
        return self._stores.market_review
