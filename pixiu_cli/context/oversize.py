"""A reply too long to carry: stored whole, but later requests (the history, a compaction's
transcript) carry its head with a marker saying how much was left out. One 20 MB reply once
made the next turn send a 60 MB request."""

from __future__ import annotations

# About ten thousand tokens of Chinese: longer than any answer worth resending whole, and a
# small part of the history budget.
HISTORY_REPLY_CHARS = 16_000


def clipped(text: str, limit: int = HISTORY_REPLY_CHARS) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n\n（此回复过长，后续请求只携带前 {limit:,} 字；原文共 {len(text):,} 字，完整保存在本地）"


def clipped_message(message: dict) -> dict:
    """An assistant message with over-long text content clipped; any other message as it is."""
    content = message.get("content")
    if message.get("role") != "assistant" or not isinstance(content, str) or len(content) <= HISTORY_REPLY_CHARS:
        return message
    return {**message, "content": clipped(content)}
