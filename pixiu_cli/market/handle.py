"""The market as the workspace hands it out (`ws.market`): bars, the security list and what is
computed or gathered from them, each store over the one database, built on first use. The
holdings the market's use cases read (what to sync, what the watch list shows) are the home's:
the composition root hands its `Home` in, so the workspace keeps one investor store."""

from __future__ import annotations

import unicodedata
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from pixiu_cli.home.handle import Home
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.vocabulary import normalise_code
from pixiu_cli.market.store import MarketStore, SecurityMaster

if TYPE_CHECKING:  # also the store types other areas' signatures name: they import them from here
    from sqlite_utils import Database

    from pixiu_cli.home.handle import Home, InvestorStore
    from pixiu_cli.market.analytics.store import AnalyticsStore
    from pixiu_cli.market.fundamentals.store import FundamentalsStore
    from pixiu_cli.market.news.store import NewsStore
    from pixiu_cli.market.review.store import MarketReviewStore
    from pixiu_cli.market.store import MarketStore, SecurityMaster


class Market:
    """The market over `db`; `home` is the workspace's (a market built alone builds its own)."""

    def __init__(self, db: Database, home: Home | None = None):
        self.db = db
        self._home = home

    @cached_property
    def home(self) -> Home:
        if self._home is not None:
            return self._home

        return Home(self.db)

    @property
    def investor(self) -> InvestorStore:
        """The holdings and the data set the market's use cases read (the home's store)."""
        return self.home.investor

    @cached_property
    def bars(self) -> MarketStore:

        return MarketStore(self.db)

    @cached_property
    def securities(self) -> SecurityMaster:

        return SecurityMaster(self.db)

    @cached_property
    def analytics(self) -> AnalyticsStore:
        from pixiu_cli.market.analytics.store import AnalyticsStore

        return AnalyticsStore(self.db)

    @cached_property
    def fundamentals(self) -> FundamentalsStore:
        from pixiu_cli.market.fundamentals.store import FundamentalsStore

        return FundamentalsStore(self.db)

    @cached_property
    def news(self) -> NewsStore:
        from pixiu_cli.market.news.store import NewsStore

        return NewsStore(self.db)

    @cached_property
    def review(self) -> MarketReviewStore:
        from pixiu_cli.market.review.store import MarketReviewStore

        return MarketReviewStore(self.db)


# a stock named on the command line: a code in any spelling (600519, sh600519, 600519.SH,
# ６００５１９), or a name, short name or alias through the one name matcher the conversation
# uses; an ambiguous name is one line listing the candidates
def resolve_stock(market: Market, typed: str, names_cache: Path | None = None) -> str:
    code = normalise_code(typed)
    if code is not None:
        return code
    if unicodedata.normalize("NFKC", typed).strip().isdigit():  # a code mistyped, not a name
        raise RequestError(f"股票代码应为 6 位数字，而不是 {typed!r}")
    from pixiu_cli.market.names.table import NameSource

    table = NameSource(market.securities, cache_dir=names_cache).table(market.investor.holdings())
    found = table.stocks_named(typed) if typed.strip() else []
    if len(found) == 1:
        return found[0][0]
    if not found:
        raise RequestError(f"找不到股票 {typed!r}：请输入 6 位代码、名称、简称或别名")
    listed = "、".join(f"{symbol} {name}" for symbol, name in found)
    raise RequestError(f"{typed} 可能是：{listed}；请用代码或更完整的名称")
