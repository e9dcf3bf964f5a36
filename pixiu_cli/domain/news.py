"""News and announcements as a feed gives them, and as stored with their provenance."""

from __future__ import annotations

from dataclasses import dataclass

from pixiu_cli.domain.investor import NewsItem

ANNOUNCEMENT = "announcement"  # a company's filing on the exchanges' disclosure platform
MEDIA = "media"  # an article a news site carries about the stock


@dataclass(frozen=True)
class FetchedNews:
    """One item as a feed returned it, before a layer is assigned."""

    symbol: str
    title: str
    summary: str | None
    source: str | None  # the outlet the feed names (证券时报网, 巨潮资讯 …)
    url: str | None
    published_at: str | None  # ISO 8601, Beijing time; None when the feed's time is unreadable
    provider: str  # the feed: akshare.stock_news_em, akshare.cninfo_disclosure …
    kind: str  # ANNOUNCEMENT | MEDIA


@dataclass(frozen=True)
class StoredNews(NewsItem):
    """A news item as the block reads it, with where and when it was fetched (url,
    fetched_at, provider: None for an imported item)."""
