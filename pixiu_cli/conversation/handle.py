"""What the other areas ask of the conversations without opening their store: a turn read
back (the brief pushed again) and the conversations of another database (the cache-break
worker). `ws.conversations` is the store itself, for the surfaces and the composition root."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pixiu_cli.conversation.store import ConversationStore, UsageRow  # noqa: F401  (the cost report's row)
from pixiu_cli.kernel.store.database import open_database

if TYPE_CHECKING:  # also the store types other areas' signatures name: they import them from here
    from pixiu_cli.conversation.store import ConversationStore, Turn
    from pixiu_cli.kernel.store.database import Database


def conversations_at(path: Path) -> ConversationStore:
    """The conversations of the database at `path` as it is (no migration): a worker that
    explains calls in a database another process owns."""

    return ConversationStore(open_database(path, migrate=False))


def stored_turn(db: Database, conversation_id: int, seq: int) -> Turn | None:
    """Turn `seq` of conversation `conversation_id`, or None when it is not stored."""

    return ConversationStore(db).turn_by_seq(conversation_id, seq)
