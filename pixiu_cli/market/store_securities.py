"""The security master: codes, names, boards and kinds of every security pixiu can name, and
the user's aliases. Name matching (context/) reads it; market-data syncs and imports write it."""

from __future__ import annotations

from collections.abc import Iterable

from sqlite_utils import Database

from pixiu_cli.kernel.db.database import write_transaction
from pixiu_cli.kernel.db.rows import dict_rows, record, text
from pixiu_cli.market.securities import Alias, Security


def _security(r) -> Security:
    return record(Security, r, "securities", kind=text(r["kind"]) or "stock")


class SecurityMaster:
    def __init__(self, db: Database):
        self.db = db

    def version(self) -> int:
        """Bumped by every change to securities or aliases: a name matcher built from them
        stays valid while this number is the same."""
        return self.db.conn.execute("select version from securities_version where id = 1").fetchone()[0]

    def all(self) -> list[Security]:
        return [_security(r) for r in dict_rows(self.db, "select * from securities order by symbol")]

    def get(self, symbol: str) -> Security | None:
        rows = dict_rows(self.db, "select * from securities where symbol = ?", [symbol])
        return _security(rows[0]) if rows else None

    def upsert(self, securities: Iterable[Security], *, keep_names: bool = False) -> int:
        """Insert or update by symbol; keep_names leaves an existing name alone (an import
        naming a stock must not overwrite the exchange's name from a sync)."""
        count = 0
        with write_transaction(self.db):
            for s in securities:
                existing = self.db.conn.execute("select name from securities where symbol = ?", [s.symbol]).fetchone()
                name = existing[0] if (existing and keep_names) else s.name
                self.db.conn.execute(
                    "insert into securities (symbol, name, kind, board, list_date, status, is_st, source, updated_at) "
                    "values (?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict(symbol) do update set "
                    "name = excluded.name, kind = excluded.kind, "
                    "board = coalesce(excluded.board, board), list_date = coalesce(excluded.list_date, list_date), "
                    "status = coalesce(excluded.status, status), is_st = excluded.is_st, "
                    "source = coalesce(excluded.source, source), updated_at = excluded.updated_at",
                    [s.symbol, name, s.kind, s.board, s.list_date, s.status, int(s.is_st), s.source, s.updated_at],
                )
                count += 1
        return count

    def aliases(self) -> list[Alias]:
        return [
            record(Alias, r, "security_aliases")
            for r in dict_rows(self.db, "select * from security_aliases order by alias")
        ]

    def add_alias(self, alias: str, symbol: str, *, source: str = "user", at: str | None = None) -> None:
        with write_transaction(self.db):
            self.db.conn.execute(
                "insert into security_aliases (alias, symbol, source, created_at) values (?, ?, ?, ?) "
                "on conflict(alias) do update set symbol = excluded.symbol, source = excluded.source, "
                "created_at = excluded.created_at",
                [alias, symbol, source, at],
            )

    def remove_alias(self, alias: str) -> bool:
        with write_transaction(self.db):
            cursor = self.db.conn.execute("delete from security_aliases where alias = ?", [alias])
        return cursor.rowcount > 0
