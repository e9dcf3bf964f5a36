"""Conversations: which one to continue (`chat --resume/--continue`, `ask --conversation/
--continue`, `/resume`), and the recent ones to list (`/sessions`). Continuing one closes
the turns a crashed process left pending, so the history the model sees is whole."""

from __future__ import annotations

from dataclasses import dataclass

from pixiu_cli.services.errors import RequestError
from pixiu_cli.store.conversations import Conversation, ConversationStore, Turn

RECAP_TURNS = 3


@dataclass(frozen=True)
class Resumed:
    conversation: Conversation
    recent_turns: list[Turn]  # the last few, for a recap


def resume(store: ConversationStore, conversation_id: int) -> Resumed | None:
    """The conversation to continue, its stale pending turns closed; None when there is none."""
    conversation = store.get_conversation(conversation_id)
    if conversation is None:
        return None
    store.mark_stale_pending(conversation.id)
    return Resumed(conversation, store.turns(conversation.id)[-RECAP_TURNS:])


def pick_conversation(store: ConversationStore, resume_id: int | None, continue_latest: bool) -> int | None:
    """The conversation a one-shot command or a new REPL continues; None for a new one."""
    if resume_id is not None:
        if store.get_conversation(resume_id) is None:
            raise RequestError(f"没有 ID 为 {resume_id} 的对话（pixiu chat 里用 /sessions 查看）")
        store.mark_stale_pending(resume_id)
        return resume_id
    if continue_latest:
        latest = store.latest_conversation()
        if latest is None:
            raise RequestError("还没有可以继续的对话")
        store.mark_stale_pending(latest.id)
        return latest.id
    return None


def start_conversation(store: ConversationStore, model: str | None) -> int:
    """A new conversation (its title comes from its first question)."""
    return store.create_conversation(model=model).id


def recent_conversations(store: ConversationStore, limit: int = 20) -> list[Conversation]:
    return store.list_conversations(limit)
