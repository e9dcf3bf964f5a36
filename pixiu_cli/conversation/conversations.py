"""Conversations: which one to continue (`chat --resume/--continue`, `ask --conversation/
--continue`, `/resume`), and the recent ones to list (`/sessions`). Continuing one closes
the turns a crashed process left pending, so the history the model sees is whole."""

from __future__ import annotations

from dataclasses import dataclass

from pixiu_cli.conversation.store import Conversation, ConversationStore, Turn
from pixiu_cli.kernel.refusal import RequestError

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


def pick_conversation(
    store: ConversationStore, resume_id: int | None, continue_latest: bool, new_if_none: bool = False
) -> int | None:
    """The conversation a one-shot command or a new REPL continues; None for a new one
    (also when there is none to continue and `new_if_none`: `ask --continue` in a script)."""
    if resume_id is not None:
        if store.get_conversation(resume_id) is None:
            raise RequestError(f"没有 ID 为 {resume_id} 的对话（pixiu chat 里用 /sessions 查看）")
        store.mark_stale_pending(resume_id)
        return resume_id
    if continue_latest:
        latest = store.latest_conversation()
        if latest is None and new_if_none:
            return None
        if latest is None:
            raise RequestError("还没有可以继续的对话")
        store.mark_stale_pending(latest.id)
        return latest.id
    return None


def start_conversation(store: ConversationStore, model: str | None, switched: bool = False) -> int:
    """A new conversation (its title comes from its first question); `switched`: `model` is
    the one /model chose before the first question, kept when the conversation is resumed."""
    return store.create_conversation(model=model, switched=switched).id


def resumed_model(conversation: Conversation, default: str) -> str:
    """The model a resumed conversation continues with: the one /model switched it to,
    else the configured default (not the model it happened to start with)."""
    return conversation.switched_model or default


def recent_conversations(store: ConversationStore, limit: int = 20, text: str | None = None) -> list[Conversation]:
    return store.list_conversations(limit, text or None)


def rename_conversation(store: ConversationStore, conversation_id: int, title: str) -> Conversation:
    title = " ".join(title.split())
    if not title:
        raise RequestError("新标题为空")
    if not store.rename(conversation_id, title[:80]):
        raise RequestError(f"没有 ID 为 {conversation_id} 的对话（pixiu sessions 查看）")
    return store.get_conversation(conversation_id)


def delete_conversation(store: ConversationStore, conversation_id: int, at: str) -> Conversation:
    """Soft delete: the conversation leaves every list; restore_conversation undoes it."""
    conversation = store.get_conversation(conversation_id)
    if conversation is None or not store.set_deleted(conversation_id, at):
        raise RequestError(f"没有 ID 为 {conversation_id} 的对话（pixiu sessions 查看）")
    return conversation


def restore_conversation(store: ConversationStore, conversation_id: int) -> Conversation:
    if not store.set_deleted(conversation_id, None):
        raise RequestError(f"对话 {conversation_id} 没有被删除，无需恢复")
    return store.get_conversation(conversation_id)


UNDONE_LABEL = "（已用 /undo 撤回，不再发送给模型）"


def undo_last_turn(store: ConversationStore, conversation_id: int | None) -> Turn:
    """The last turn the model still sees leaves its history (its record stays: question,
    reply, calls); memories it wrote are not touched (/forget undoes those)."""
    turns = store.turns(conversation_id) if conversation_id is not None else []
    live = [t for t in turns if t.messages and t.status != "pending"]
    if not live:
        raise RequestError("当前对话没有可以撤回的一轮")
    last = live[-1]
    store.label_retried(last.id, UNDONE_LABEL)
    return last


def conversation_to_save(store: ConversationStore, conversation_id: int) -> tuple[Conversation, list[Turn]]:
    """The conversation and all its turns, for /save (views/transcript.py writes them)."""
    conversation = store.get_conversation(conversation_id)
    if conversation is None:
        raise RequestError(f"没有 ID 为 {conversation_id} 的对话")
    return conversation, store.turns(conversation_id)


def beijing_minute(stamp: str) -> str:
    """A stored UTC stamp as the user reads time everywhere else: Beijing, to the minute."""
    from datetime import UTC, datetime

    from pixiu_cli.market.trading_days import SHANGHAI

    try:
        moment = datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return str(stamp)[:16]
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return moment.astimezone(SHANGHAI).strftime("%Y-%m-%d %H:%M")
