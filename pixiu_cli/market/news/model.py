"""News and announcements as a feed gives them, and as stored with their provenance."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from pixiu_cli.home.model import NewsItem

ANNOUNCEMENT = "announcement"  # a company's filing on the exchanges' disclosure platform
MEDIA = "media"  # an article a news site carries about the stock

# Real headlines and filing titles run to 100–150 characters and Eastmoney's 新闻内容 is a
# snippet of a few hundred; anything longer is cut here, before it is stored or shown.
TITLE_LIMIT = 200
SUMMARY_LIMIT = 1000
# A feed's clock may run a little ahead of ours; an item dated later than this after the
# fetch was not published yet (9999-12-31 is a placeholder, not news).
FUTURE_SLACK = timedelta(hours=1)


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


@dataclass(frozen=True)
class NewsScreen:
    """What one feed's items come to before they are stored."""

    kept: list[FetchedNews]
    future: tuple[str, ...] = ()  # the refused items' dates
    undated: int = 0  # kept without a date: the feed's time was unreadable (NaT)
    cut: int = 0  # kept with the title or summary cut to its limit


def cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _published(item: FetchedNews) -> datetime | None:
    try:
        moment = datetime.fromisoformat(item.published_at) if item.published_at else None
    except ValueError:
        return None
    return moment if moment is not None and moment.tzinfo is not None else None


def screen_news(items: Iterable[FetchedNews], now: datetime) -> NewsScreen:
    """Items dated after the fetch are refused (they would list as the newest and push real
    ones out); an item without a readable date is kept undated, never given the fetch time;
    titles and summaries are cut to TITLE_LIMIT and SUMMARY_LIMIT characters."""
    kept, future, undated, shortened = [], [], 0, 0
    for item in items:
        moment = _published(item)
        if moment is not None and moment > now + FUTURE_SLACK:
            future.append(item.published_at[:10])
            continue
        undated += moment is None
        title, summary = cut(item.title, TITLE_LIMIT), item.summary and cut(item.summary, SUMMARY_LIMIT)
        shortened += (title, summary) != (item.title, item.summary)
        kept.append(replace(item, title=title, summary=summary, published_at=item.published_at if moment else None))
    return NewsScreen(kept, tuple(future), undated, shortened)
