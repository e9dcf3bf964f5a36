"""The log of what other agents asked through `pixiu mcp` (`pixiu mcp log` reads it)."""

from __future__ import annotations

from dataclasses import dataclass

from pixiu_cli.kernel.store.database import Database, write_transaction
from pixiu_cli.kernel.store.rows import dict_rows


@dataclass(frozen=True)
class McpCall:
    id: int
    agent: str  # the client's name from its initialize request ("未知" when it gave none)
    kind: str  # tool | resource | prompt
    name: str
    at: str
    outcome: str  # ok | refused | error
    detail: str


class McpCallLog:
    def __init__(self, db: Database):
        self.db = db

    def record(self, agent: str, kind: str, name: str, at: str, outcome: str, detail: str = "") -> None:
        with write_transaction(self.db):
            self.db.conn.execute(
                "insert into mcp_calls (agent, kind, name, at, outcome, detail) values (?, ?, ?, ?, ?, ?)",
                [agent, kind, name, at, outcome, detail],
            )

    def recent(self, limit: int = 50) -> list[McpCall]:
        """The latest calls, oldest first."""
        rows = dict_rows(
            self.db,
            "select id, agent, kind, name, at, outcome, detail from mcp_calls order by id desc limit ?",
            [limit],
        )
        return [McpCall(**row) for row in reversed(rows)]
