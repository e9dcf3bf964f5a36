"""A reply too long to carry: stored whole (turns.reply_text, calls.reply_text), but the
history message stored with the turn, and so every later request and a compaction's
transcript, carries its head with a marker saying how much was left out; the turn says so.
One 20 MB reply once made the next turn send a 60 MB request."""

from __future__ import annotations

# About ten thousand tokens of Chinese: longer than any answer worth resending whole, and a
# small part of the history budget.
HISTORY_REPLY_CHARS = 16_000
_MARKER_ROOM = 120  # the marker fits in this, so a clipped text is within the limit (clipping it again changes nothing)


def _marker(kept: int, total: int) -> str:
    return f"\n\n（此回复过长，后续请求只携带前 {kept:,} 字；原文共 {total:,} 字，完整保存在本地）"


def clipped(text: str, limit: int = HISTORY_REPLY_CHARS) -> str:
    if len(text) <= limit:
        return text
    kept = limit - _MARKER_ROOM
    return text[:kept] + _marker(kept, len(text))


def clipped_message(message: dict) -> dict:
    """An assistant message with over-long text content (or reasoning sent back with it)
    clipped; any other message as it is."""
    if message.get("role") != "assistant":
        return message
    long = {
        key: clipped(value)
        for key in ("content", "reasoning_content")
        if isinstance(value := message.get(key), str) and len(value) > HISTORY_REPLY_CHARS
    }
    return {**message, **long} if long else message


def clipped_notice(reply: str) -> str | None:
    """What the turn says when its reply was clipped for the history."""
    if len(reply) <= HISTORY_REPLY_CHARS:
        return None
    kept = HISTORY_REPLY_CHARS - _MARKER_ROOM
    return f"回复过长（共 {len(reply):,} 字）：已完整保存在本地，之后的对话只携带它的前 {kept:,} 字。"
