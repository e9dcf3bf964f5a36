"""What other agents asked through `pixiu mcp`: each call recorded as it is answered or
refused, and the latest listed (`pixiu mcp log`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pixiu_cli.kernel.db.stores import stores_of

if TYPE_CHECKING:
    from sqlite_utils import Database

UNKNOWN_AGENT = "未知"


def record_call(db: Database, agent: str | None, kind: str, name: str, at: str, outcome: str, detail: str = "") -> None:
    stores_of(db).mcp_calls.record((agent or "").strip() or UNKNOWN_AGENT, kind, name, at, outcome, detail[:200])
