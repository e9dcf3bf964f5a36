"""Fetched news and announcements: stored once each (by URL, else a digest of source, title
and time), with the feed, URL and fetch time beside the columns the context block reads."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from pixiu_cli.kernel.store.database import Database, write_transaction
from pixiu_cli.kernel.store.rows import dict_rows, record
from pixiu_cli.market.news.model import FetchedNews, StoredNews


def dedup_key(item: FetchedNews) -> str:
    """The URL when the feed gives one; else a digest of source + title + published time."""
    if item.url:
        return item.url.strip()
    raw = "\x1f".join((item.source or "", item.title.strip(), item.published_at or ""))
    return "sha256:" + hashlib.sha256(raw.encode("utf-8")).hexdigest()


class NewsStore:
    def __init__(self, db: Database):
        self.db = db

    def add(self, items: Sequence[tuple[FetchedNews, str]], fetched_at: str) -> list[str]:
        """(item, layer) pairs in one transaction; returns the layers of the new ones."""
        added = []
        with write_transaction(self.db):
            for item, layer in items:
                cursor = self.db.conn.execute(
                    "insert or ignore into news (symbol, title, summary, source, layer, published_at, url, "
                    "fetched_at, provider, dedup_key) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        item.symbol,
                        item.title,
                        item.summary,
                        item.source,
                        layer,
                        item.published_at,  # None stays undated: the fetch time is no publication time
                        item.url,
                        fetched_at,
                        item.provider,
                        dedup_key(item),
                    ],
                )
                if cursor.rowcount:
                    added.append(layer)
        return added

    def listing(self, symbol: str | None, limit: int) -> list[StoredNews]:
        where, params = ("where symbol = ?", [symbol]) if symbol else ("", [])
        rows = dict_rows(
            self.db, f"select * from news {where} order by published_at desc, id desc limit ?", [*params, limit]
        )
        return [record(StoredNews, r, "news") for r in rows]

    def since(self, symbols: Sequence[str], moment: str, limit: int) -> list[StoredNews]:
        """Items about `symbols` published or fetched after `moment`, newest first."""
        if not symbols:
            return []
        marks = ",".join("?" * len(symbols))
        rows = dict_rows(
            self.db,
            f"select * from news where symbol in ({marks}) and (published_at > ? or fetched_at > ?) "
            "order by published_at desc, id desc limit ?",
            [*symbols, moment, moment, limit],
        )
        return [record(StoredNews, r, "news") for r in rows]

    def last_fetch(self, symbol: str, provider: str, until: str) -> str | None:
        """The newest publication time stored from `provider` up to `until` (an item an older
        pixiu stored dated 9999-12-31 must not move the next fetch's window past today)."""
        row = self.db.conn.execute(
            "select max(published_at) from news where symbol = ? and provider = ? and published_at <= ?",
            [symbol, provider, until],
        ).fetchone()
        return row[0] if row else None
