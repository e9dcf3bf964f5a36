"""When each market-data source has the day's bars: the Beijing time after which a sync on a
trading day gets that day's close. A fact about the sources, kept as data with where each
figure comes from and when it was read; `pixiu schedule` runs the daily chain after it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

# The exchanges' close: a source with no publication time is read after it.
MARKET_CLOSE = time(15, 0)
# How long after a source publishes the day's bars the daily chain starts: a slow publication
# day still leaves the sync the day's close.
PUBLICATION_MARGIN = timedelta(minutes=30)


@dataclass(frozen=True)
class Publication:
    source: str
    at: time | None  # Beijing time the day's daily bars are complete; None: no publication (files)
    basis: str  # where the figure comes from
    read_on: str  # when that was read


PUBLICATIONS = {
    p.source: p
    for p in (
        Publication(
            "baostock",
            time(17, 30),
            "baostock.com「数据更新时间」：当前交易日 17:30 完成日 K 线数据入库（20:30 分钟线）",
            "2026-12-06",
        ),
        Publication(
            "akshare",
            time(15, 30),
            "akshare 的日线接口 stock_zh_a_daily（新浪）与 stock_zh_a_hist（东方财富）：历史数据按日更新，"
            "当日收盘价请在收盘后获取；15:00 收盘集合竞价结束，留半小时给行情源更新",
            "2026-12-06",
        ),
        Publication("csv", None, "本地 CSV 文件（pixiu data import）：没有发布时间，导入什么就是什么", "2026-12-06"),
    )
}


def default_at(source: str) -> time:
    """When the daily chain runs by default: the source's publication time plus the margin
    (after the close for a source that publishes nothing)."""
    published = PUBLICATIONS[source].at or MARKET_CLOSE
    return (datetime.combine(date.min, published) + PUBLICATION_MARGIN).time()


def too_early(at: time, source: str) -> Publication | None:
    """The source's publication when `at` comes before it: a sync then gets the day before's close."""
    published = PUBLICATIONS[source]
    return published if published.at is not None and at < published.at else None
