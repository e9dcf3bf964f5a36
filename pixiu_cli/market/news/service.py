"""News and announcements from akshare (the `akshare` extra, as for prices): Eastmoney's
per-stock news `stock_news_em` and the company filings of cninfo (巨潮资讯, the exchanges'
designated disclosure platform) `stock_zh_a_disclosure_report_cninfo`.

Both return frames of text columns: stock_news_em 关键词, 新闻标题, 新闻内容, 发布时间
("2024-05-22 10:30:00"), 文章来源, 新闻链接; the cninfo function 代码, 简称, 公告标题,
公告时间 (a pandas datetime turned into text, so an unreadable time is the text "NaT"),
公告链接. Frames are read through `to_dict("records")` only.

News and announcements (`pixiu news sync`, `pixiu news`, `/news`): fetch each stock's
news and company filings, assign each item its information layer by source, store it once;
list what is stored. A feed that fails is one line and loses nothing: what other feeds and
stocks returned is stored, and what was stored before stays."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from pixiu_cli.conversation.context.layers import source_layer
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.market.akshare_source import AkshareSource
from pixiu_cli.market.analytics.service import held_and_watched
from pixiu_cli.market.news.model import ANNOUNCEMENT, MEDIA, FetchedNews, screen_news
from pixiu_cli.market.news.store import NewsStore
from pixiu_cli.market.sources import SourceError

NEWS_PROVIDER = "akshare.stock_news_em"
NOTICE_PROVIDER = "akshare.cninfo_disclosure"
CNINFO = "巨潮资讯"
_STAMP = re.compile(r"(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?")


def _text(value) -> str | None:
    if value is None or value != value:  # NaN / NaT
        return None
    text = " ".join(str(value).split())
    return text if text and text not in ("NaT", "nan", "None") else None


def beijing_stamp(value) -> str | None:
    """ISO 8601 with +08:00 from what a feed gives: text, a datetime or a date."""
    if isinstance(value, datetime):
        value = value.strftime("%Y-%m-%d %H:%M:%S")
    elif isinstance(value, date):
        value = value.isoformat()
    match = _STAMP.match(_text(value) or "")
    if not match:
        return None
    y, mo, d, h, mi, s = (int(g) if g else 0 for g in match.groups())
    try:
        moment = datetime(y, mo, d, h, mi, s)
    except ValueError:
        return None
    return moment.strftime("%Y-%m-%dT%H:%M:%S+08:00")


def _no_articles(exc: KeyError) -> bool:
    """akshare 1.19.5's stock_news_em makes its frame from the search result's article list
    and then reads that frame's `code` column: for a stock with no articles the list is
    empty, the frame has no columns, and that read raises KeyError('code'). It is told apart
    from a changed API (articles whose fields were renamed: a real failure) by the frame
    itself, as the failing call left it."""
    if exc.args != ("code",):
        return False
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_name == "stock_news_em":
            built = tb.tb_frame.f_locals.get("temp_df")
            return getattr(built, "empty", False) is True and len(getattr(built, "columns", ())) == 0
        tb = tb.tb_next
    return False


def _news_frame(ak, symbol: str):
    """The news frame, or None for a stock no article is about."""
    try:
        return ak.stock_news_em(symbol=symbol)
    except KeyError as exc:
        if _no_articles(exc):
            return None
        raise


class AkshareNews:
    name = "akshare"

    def __init__(self, timeout: float = 30.0, module=None):
        self._source = AkshareSource(timeout=timeout, module=module)

    def stock_news(self, symbol: str) -> list[FetchedNews]:
        frame = self._source._call("个股新闻", lambda ak: _news_frame(ak, symbol))
        if frame is None:  # the search found no article about the stock
            return []
        out = []
        for r in frame.to_dict("records"):
            title = _text(r.get("新闻标题"))
            if title:
                out.append(
                    FetchedNews(
                        symbol,
                        title,
                        _text(r.get("新闻内容")),
                        _text(r.get("文章来源")),
                        _text(r.get("新闻链接")),
                        beijing_stamp(r.get("发布时间")),
                        NEWS_PROVIDER,
                        MEDIA,
                    )
                )
        return out

    def announcements(self, symbol: str, start: str, end: str) -> list[FetchedNews]:
        """Filings published in [start, end] (YYYY-MM-DD)."""
        frame = self._source._call(
            "巨潮公告",
            lambda ak: ak.stock_zh_a_disclosure_report_cninfo(
                symbol=symbol, market="沪深京", start_date=start.replace("-", ""), end_date=end.replace("-", "")
            ),
        )
        out = []
        for r in frame.to_dict("records"):
            title = _text(r.get("公告标题"))
            code = _text(r.get("代码")) or symbol
            if title and code == symbol:
                url = _text(r.get("公告链接"))
                out.append(
                    FetchedNews(
                        symbol,
                        title,
                        None,
                        CNINFO,
                        url,
                        beijing_stamp(r.get("公告时间")),
                        NOTICE_PROVIDER,
                        ANNOUNCEMENT,
                    )
                )
        return out


if TYPE_CHECKING:
    from pixiu_cli.market.handle import Market

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


def news_targets(market: Market, symbols: list[str]) -> list[str]:
    targets = symbols or held_and_watched(market)
    if not targets:
        raise RequestError("没有要同步新闻的股票：持仓和自选股都为空（可指定代码：pixiu news sync 600519）")
    return targets


def _layered(items: list[FetchedNews]) -> list[tuple[FetchedNews, str]]:
    return [(item, source_layer(item.kind, item.source).value) for item in items]


def _sync_one(feed, store: NewsStore, symbol: str, now: datetime) -> NewsOutcome:

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
    market: Market,
    request: NewsSyncRequest,
    now: datetime,
    on_symbol: Callable[[NewsOutcome], None] = lambda outcome: None,
    module=None,
) -> NewsSyncResult:
    """`module`: an akshare stand-in (tests); by default akshare itself, imported on use."""

    targets = news_targets(market, request.symbols)
    feed = AkshareNews(timeout=request.timeout, module=module)
    store = market.news
    outcomes = []
    for symbol in targets:
        outcome = _sync_one(feed, store, symbol, now)
        outcomes.append(outcome)
        on_symbol(outcome)
    return NewsSyncResult(outcomes)
