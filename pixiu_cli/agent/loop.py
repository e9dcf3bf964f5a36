"""One turn: persist the user's message, build the messages, call the model, run tools,
repeat until the model answers in text. Errors become a stored, visible outcome — never a
crash — and whatever arrived before an interruption is kept."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Protocol

from pixiu_cli.context.builder import BuiltMessages, ContextBuilder
from pixiu_cli.llm.types import CallOutcome, ChatRequest, LLMError
from pixiu_cli.store.conversations import ConversationStore, Usage


class TurnSink(Protocol):
    def reasoning(self, delta: str) -> None: ...
    def text(self, delta: str) -> None: ...
    def notice(self, line: str) -> None: ...


class SilentSink:
    def reasoning(self, delta: str) -> None:
        pass

    def text(self, delta: str) -> None:
        pass

    def notice(self, line: str) -> None:
        pass


@dataclass(frozen=True)
class TurnResult:
    conversation_id: int
    turn_id: int
    seq: int
    reply: str
    status: str  # complete | interrupted | error
    error: str | None
    usage: Usage
    latency_ms: float
    calls: int


def sum_usage(usages: list[Usage]) -> Usage:
    def total(name: str) -> int | None:
        values = [getattr(u, name) for u in usages]
        return None if not values or any(v is None for v in values) else sum(values)

    return Usage(total("prompt_tokens"), total("completion_tokens"), total("cache_hit_tokens"),
                 total("cache_miss_tokens"))


def context_summary_json(built: BuiltMessages) -> str | None:
    """What /context shows about the dynamic block, stored beside the exact request."""
    block = built.context_block
    if block is None:
        return None
    return json.dumps({
        "intent": built.intent.value, "symbols": built.symbols, "tokens": block.tokens, "budget": block.budget,
        "omitted": block.omitted, "memory_ids": block.memory_ids,
        "sections": [{"key": s.key, "title": s.title, "tokens": s.tokens, "items": s.items,
                      "memory_ids": list(s.memory_ids)} for s in block.stats()],
    }, ensure_ascii=False)


class Agent:
    def __init__(self, store: ConversationStore, client, builder: ContextBuilder, *,
                 temperature: float | None = None, max_steps: int = 8):
        self.store = store
        self.client = client
        self.builder = builder
        self.temperature = temperature
        self.max_steps = max_steps

    def preview(self, conversation_id: int | None, user_text: str) -> tuple[dict, dict | None]:
        """The exact request body a turn would send now, without calling the model."""
        seq = None
        if conversation_id:
            turns = self.store.turns(conversation_id)
            seq = (turns[-1].seq + 1) if turns else 1
        built = self.builder.build_messages(conversation_id, user_text, before_seq=seq)
        body = self.client.body_for(ChatRequest(messages=built.messages, tools=[], temperature=self.temperature))
        info = context_summary_json(built)
        return body, (json.loads(info) if info else None)

    def run_turn(self, conversation_id: int, user_text: str, sink: TurnSink | None = None) -> TurnResult:
        sink = sink or SilentSink()
        turn = self.store.start_turn(conversation_id, user_text)
        built = self.builder.build_messages(conversation_id, user_text, before_seq=turn.seq)
        messages = list(built.messages)
        added = messages[1 + built.history_count:]
        context_json = context_summary_json(built)
        self.builder.domain.count_injection(
            [int(m.split(":")[1]) for m in built.memory_ids if m.startswith("note:")])
        usages: list[Usage] = []
        latency = 0.0
        status, error, reply = "complete", None, ""

        for step in range(self.max_steps):
            request = ChatRequest(messages=messages, tools=[], temperature=self.temperature)
            outcome = CallOutcome()
            call_id = self.store.start_call(
                turn_id=turn.id, conversation_id=conversation_id, step=step, provider=self.client.provider,
                model=self.client.model, request_json=json.dumps(self.client.body_for(request), ensure_ascii=False),
                context_json=context_json)
            call_status, call_error = "complete", None
            try:
                for kind, delta in self.client.stream(request, outcome):
                    (sink.reasoning if kind == "reasoning" else sink.text)(delta)
            except LLMError as exc:
                call_status, call_error = "error", str(exc)
            except KeyboardInterrupt:
                call_status, call_error = "interrupted", "用户按 Ctrl-C 中断了回复"
            self.store.finish_call(
                call_id, status=call_status, reply_text=outcome.text, reasoning_text=outcome.reasoning,
                tool_calls=[t.as_message_part() for t in outcome.tool_calls], finish_reason=outcome.finish_reason,
                usage=outcome.usage, ttft_ms=outcome.ttft_ms, latency_ms=outcome.latency_ms,
                error=call_error, request_json=outcome.request_json or None)
            usages.append(outcome.usage)
            latency += outcome.latency_ms or 0.0
            reply = outcome.text
            if call_status != "complete":
                status, error = ("error" if call_status == "error" else "interrupted"), call_error
                if outcome.text:
                    added.append({"role": "assistant", "content": outcome.text})
                break
            added.append({"role": "assistant", "content": outcome.text})
            break

        # A turn that failed before any reply contributes nothing to later history, so the
        # next request does not carry two user messages in a row.
        history = added if (status == "complete" or reply) else []
        self.store.finish_turn(turn.id, status=status, reply_text=reply, messages=history, error=error)
        return TurnResult(conversation_id, turn.id, turn.seq, reply, status, error, sum_usage(usages),
                          latency, len(usages))
