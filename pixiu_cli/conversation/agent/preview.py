"""The request a turn would send now, assembled without the model loop: the context block
and history (the builder), the fixed tool list and the client's body. `pixiu context TEXT`
and the agent's own turns build it the same way, so the preview is exactly what is sent;
this module imports neither the loop, compaction nor the guardrails."""

from __future__ import annotations

import json
from dataclasses import dataclass

from pixiu_cli.conversation.agent.tools import ToolRegistry
from pixiu_cli.conversation.context.builder import BuiltMessages, ContextBuilder
from pixiu_cli.conversation.llm.model import ChatModel
from pixiu_cli.conversation.llm.types import ChatRequest
from pixiu_cli.conversation.store import ConversationStore


def context_summary_json(built: BuiltMessages) -> str | None:
    """What /context shows about the dynamic block, stored beside the exact request."""
    block = built.context_block
    if block is None:
        return None
    return json.dumps(
        {
            "intent": built.intent.value,
            "symbols": built.symbols,
            "tokens": block.tokens,
            "budget": block.budget,
            "omitted": block.omitted,
            "memory_ids": [str(m) for m in block.memory_ids],
            "overhead": block.overhead(),
            "sections": [
                {
                    "key": s.key,
                    "title": s.title,
                    "tokens": s.tokens,
                    "items": s.items,
                    "memory_ids": [str(m) for m in s.memory_ids],
                    "unchanged": s.unchanged,
                    "unchanged_since": s.unchanged_since,
                }
                for s in block.stats()
            ],
            **({"selection": built.selection.explanation()} if built.selection else {}),
        },
        ensure_ascii=False,
    )


@dataclass(frozen=True)
class RequestPreview:
    """What a turn's requests are made of, without anything that calls the model."""

    store: ConversationStore
    builder: ContextBuilder
    client: ChatModel  # only its `body_for` is used here
    tools: ToolRegistry
    temperature: float | None

    def request(self, messages: list[dict]) -> ChatRequest:
        return ChatRequest(messages=messages, tools=self.tools.schemas(), temperature=self.temperature)

    def preview(self, conversation_id: int | None, user_text: str) -> tuple[dict, dict | None]:
        """The exact request body a turn would send now, and the block's summary."""
        seq = None
        if conversation_id:
            seq = self.store.last_seq(conversation_id) + 1
        built = self.builder.build_messages(conversation_id, user_text, before_seq=seq)
        info = context_summary_json(built)
        return self.client.body_for(self.request(built.messages)), (json.loads(info) if info else None)
