"""News and announcements from akshare (the `akshare` extra, as for prices): Eastmoney's
per-stock news `stock_news_em` and the company filings of cninfo (巨潮资讯, the exchanges'
designated disclosure platform) `stock_zh_a_disclosure_report_cninfo`.

Both return frames of text columns: stock_news_em 关键词, 新闻标题, 新闻内容, 发布时间
("2024-05-22 10:30:00"), 文章来源, 新闻链接; the cninfo function 代码, 简称, 公告标题,
公告时间 (a pandas datetime turned into text, so an unreadable time is the text "NaT"),
公告链接. Frames are read through `to_dict("records")` only."""

from __future__ import annotations

import re
from datetime import date, datetime

from pixiu_cli.market.akshare_source import AkshareSource
from pixiu_cli.market.news.model import ANNOUNCEMENT, MEDIA, FetchedNews

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
