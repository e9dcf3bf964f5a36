"""A digest of what some tables hold, so a caller can tell that nothing changed since it
last wrote them (the demo skips recomputing its analytics when its data is as it left it)."""

from __future__ import annotations

import hashlib

from sqlite_utils import Database

# What the demo's refresh reads or writes: the document's tables, the analytics it computes
# and their inputs (bars, alert rules, notes and trades made in conversation), and the
# version counters. A note's inject_count is left out: every turn that shows a note bumps
# it, and it is neither an input nor an output of the refresh.
DEMO_CONTENT = (
    ("holdings", "*", "1"),
    ("profiles", "*", "1"),
    ("news", "*", "1"),
    ("signals", "*", "1"),
    ("reports", "*", "1"),
    ("decisions", "*", "1"),
    ("alerts", "*", "1"),
    ("persona", "*", "1"),
    (
        "memory_events",
        "id, kind, note_kind, symbol, text, created_at, source, author, deleted_at, decision_id",
        "kind = 'user_note'",
    ),
    ("alert_rules", "*", "1"),
    ("backtests", "*", "1"),
    ("securities", "*", "1"),
    ("security_aliases", "*", "1"),
    ("market_series", "*", "1"),
    ("corporate_actions", "*", "1"),
    ("market_version", "*", "1"),
    ("securities_version", "*", "1"),
)


def content_digest(db: Database, content: tuple[tuple[str, str, str], ...] = DEMO_CONTENT) -> str:
    """sha256 over the rows of each (table, columns, where) in rowid order."""
    digest = hashlib.sha256()
    for table, columns, where in content:
        digest.update(f"{table}|{columns}|{where}\n".encode())
        for row in db.conn.execute(f"select {columns} from [{table}] where {where} order by rowid"):
            digest.update(repr(row).encode())
    return digest.hexdigest()
