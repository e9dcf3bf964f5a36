"""News and announcements (`pixiu news sync`, `pixiu news`, `/news`): fetch each stock's
news and company filings, assign each item its information layer by source, store it once;
list what is stored. A feed that fails is one line and loses nothing: what other feeds and
stocks returned is stored, and what was stored before stays."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from pixiu_cli.conversation.context.layers import source_layer
from pixiu_cli.kernel.db.shared_stores import stores_of
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.market.analytics.service import held_and_watched
from pixiu_cli.market.news.model import FetchedNews, screen_news
from pixiu_cli.market.news.store import NewsStore

if TYPE_CHECKING:
    from sqlite_utils import Database

ANNOUNCEMENT_DAYS = 30  # how far back the first sync of a stock asks for filings


@dataclass(frozen=True)
class NewsSyncRequest:
    symbols: list[str]  # empty: the holdings and the watch list
    timeout: float = 20.0


@dataclass(frozen=True)
class NewsOutcome:
    symbol: str
    fetched: int = 0
    added: int = 0
    layers: dict[str, int] = field(default_factory=dict)  # layer → items added
    errors: tuple[str, ...] = ()
    future: tuple[str, ...] = ()  # dates of items refused for being after the fetch
    undated: int = 0  # items kept without a publication time
    cut: int = 0  # items whose title or summary was cut to its limit


@dataclass(frozen=True)
class NewsSyncResult:
    outcomes: list[NewsOutcome]

    @property
    def added(self) -> int:
        return sum(o.added for o in self.outcomes)

    @property
    def errors(self) -> list[str]:
        return [e for o in self.outcomes for e in o.errors]


def news_targets(db: Database, symbols: list[str]) -> list[str]:
    targets = symbols or held_and_watched(db)
    if not targets:
        raise RequestError("没有要同步新闻的股票：持仓和自选股都为空（可指定代码：pixiu news sync 600519）")
    return targets


def _layered(items: list[FetchedNews]) -> list[tuple[FetchedNews, str]]:
    return [(item, source_layer(item.kind, item.source).value) for item in items]


def _sync_one(feed, store: NewsStore, symbol: str, now: datetime) -> NewsOutcome:
    from pixiu_cli.market.news.akshare_source import NOTICE_PROVIDER
    from pixiu_cli.market.sources import SourceError

    fetched_at = now.isoformat(timespec="seconds")
    last = store.last_fetch(symbol, NOTICE_PROVIDER, fetched_at)
    start = last[:10] if last else (now - timedelta(days=ANNOUNCEMENT_DAYS)).date().isoformat()
    fetches = (lambda: feed.stock_news(symbol), lambda: feed.announcements(symbol, start, now.date().isoformat()))
    fetched = added = undated = shortened = 0
    layers: dict[str, int] = {}
    errors, future = [], []
    for fetch in fetches:
        try:
            screened = screen_news(fetch(), now)
        except SourceError as exc:
            errors.append(f"{symbol}：{exc}")
            continue
        fetched += len(screened.kept) + len(screened.future)
        future += screened.future
        undated, shortened = undated + screened.undated, shortened + screened.cut
        new = store.add(_layered(screened.kept), fetched_at)  # one transaction per feed: never half-written
        added += len(new)
        for layer in new:
            layers[layer] = layers.get(layer, 0) + 1
    return NewsOutcome(symbol, fetched, added, layers, tuple(errors), tuple(future), undated, shortened)


def sync_news(
    db: Database,
    request: NewsSyncRequest,
    now: datetime,
    on_symbol: Callable[[NewsOutcome], None] = lambda outcome: None,
    module=None,
) -> NewsSyncResult:
    """`module`: an akshare stand-in (tests); by default akshare itself, imported on use."""
    from pixiu_cli.market.news.akshare_source import AkshareNews

    targets = news_targets(db, request.symbols)
    feed = AkshareNews(timeout=request.timeout, module=module)
    store = stores_of(db).news
    outcomes = []
    for symbol in targets:
        outcome = _sync_one(feed, store, symbol, now)
        outcomes.append(outcome)
        on_symbol(outcome)
    return NewsSyncResult(outcomes)
