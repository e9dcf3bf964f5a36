"""build_messages: the static prefix, the history, the dynamic block, the user's message.

Static first (byte-identical across turns, sessions and users) so the provider's prefix
cache can reuse it; everything that changes goes last."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from pixiu_cli.resources import read_prompt
from pixiu_cli.store.conversations import ConversationStore

CONTEXT_MARKER = "[上下文信息]"


@cache
def system_prompt() -> str:
    return read_prompt("system.md")


@dataclass(frozen=True)
class BuiltMessages:
    messages: list[dict]
    history_count: int
    context_block: dict | None = None
    sections: list = field(default_factory=list)
    memory_ids: list = field(default_factory=list)


def history_messages(store: ConversationStore, conversation_id: int, before_seq: int | None = None) -> list[dict]:
    """Earlier turns as they were sent. Reasoning is dropped between user turns (the API
    wants it back only inside one turn's tool loop)."""
    history: list[dict] = []
    for turn in store.turns(conversation_id):
        if before_seq is not None and turn.seq >= before_seq:
            break
        if not turn.messages:
            continue
        for message in turn.messages:
            history.append({k: v for k, v in message.items() if k != "reasoning_content"})
    return history


class ContextBuilder:
    def __init__(self, store: ConversationStore):
        self.store = store

    def build_messages(self, conversation_id: int | None, user_text: str,
                       before_seq: int | None = None) -> BuiltMessages:
        history = history_messages(self.store, conversation_id, before_seq) if conversation_id else []
        messages = [{"role": "system", "content": system_prompt()}, *history,
                    {"role": "user", "content": user_text}]
        return BuiltMessages(messages=messages, history_count=len(history))
