"""The schema, as ordered sqlite-utils migrations. Never edit an applied migration; add one."""

from __future__ import annotations

from sqlite_utils import Database, Migrations

migrations = Migrations("pixiu")


@migrations()
def m001_conversations(db: Database) -> None:
    db["conversations"].create(
        {
            "id": int,
            "title": str,
            "created_at": str,
            "updated_at": str,
            "model": str,
            "summary": str,
            "summary_upto_turn": int,
        },
        pk="id",
    )
    db["turns"].create(
        {
            "id": int,
            "conversation_id": int,
            "seq": int,
            "user_text": str,
            "reply_text": str,
            "status": str,  # pending | complete | interrupted | error
            "error": str,
            "messages_json": str,  # what this turn adds to the history, as sent
            "created_at": str,
            "finished_at": str,
        },
        pk="id",
        foreign_keys=[("conversation_id", "conversations", "id")],
    )
    db["turns"].create_index(["conversation_id", "seq"], unique=True)
    db["calls"].create(
        {
            "id": int,
            "turn_id": int,
            "conversation_id": int,
            "step": int,
            "provider": str,
            "model": str,
            "request_json": str,  # the exact body sent over the wire (no key: keys travel in headers)
            "reply_text": str,
            "reasoning_text": str,
            "tool_calls_json": str,
            "finish_reason": str,
            "status": str,  # pending | complete | interrupted | error
            "error": str,
            "prompt_tokens": int,
            "completion_tokens": int,
            "cache_hit_tokens": int,
            "cache_miss_tokens": int,
            "ttft_ms": float,
            "latency_ms": float,
            "started_at": str,
            "finished_at": str,
        },
        pk="id",
        foreign_keys=[("turn_id", "turns", "id")],
    )
    db["calls"].create_index(["turn_id", "step"])
    db["calls"].create_index(["conversation_id", "id"])
