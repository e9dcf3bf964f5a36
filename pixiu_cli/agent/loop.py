"""One turn: persist the user's message, build the messages, call the model, run the tools
it asks for, repeat until it answers in text. Errors become a stored, visible outcome —
a tool result for the model or a line for the user — never a crash, and whatever arrived
before an interruption is kept."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Protocol

from pixiu_cli.cache.explain import explain_finished_call
from pixiu_cli.agent.compaction import Compactor, turn_history_tokens
from pixiu_cli.agent.guardrails import Guardrails, run_tool
from pixiu_cli.agent.tools import ToolContext, ToolRegistry
from pixiu_cli.context.builder import BuiltMessages, ContextBuilder
from pixiu_cli.context.inspect import is_context_message
from pixiu_cli.llm.client import RETRYING
from pixiu_cli.llm.types import CallOutcome, ChatRequest, LLMError, Usage
from pixiu_cli.store.conversations import ConversationStore

# While a reply streams, what has arrived is saved at most this often (a killed process
# loses at most this much of what was shown; a fast reply is never saved half-way).
PARTIAL_SAVE_SECONDS = 0.25
STEP_LIMIT_NOTE = "已达到本轮工具调用上限（{n} 步）：请不要再调用工具，根据已有信息直接回答用户。"
RETRIED_PARTIAL = "（已自动重试）"  # appended to the error of a broken call that was asked again


class TurnSink(Protocol):
    def reasoning(self, delta: str) -> None: ...
    def text(self, delta: str) -> None: ...
    def notice(self, line: str) -> None: ...
    def retrying(self, line: str) -> None: ...


class SilentSink:
    def reasoning(self, delta: str) -> None:
        pass

    def text(self, delta: str) -> None:
        pass

    def notice(self, line: str) -> None:
        pass

    def retrying(self, line: str) -> None:
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
    notices: tuple[str, ...] = ()
    attempts: int = 0  # HTTP requests to the model service, retries included


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
        "omitted": block.omitted, "memory_ids": block.memory_ids, "overhead": block.overhead(),
        "sections": [{"key": s.key, "title": s.title, "tokens": s.tokens, "items": s.items,
                      "memory_ids": list(s.memory_ids), "unchanged": s.unchanged,
                      "unchanged_since": s.unchanged_since} for s in block.stats()],
        **({"selection": built.selection.explanation()} if built.selection else {}),
    }, ensure_ascii=False)


def assistant_message(outcome: CallOutcome) -> dict:
    message: dict = {"role": "assistant", "content": outcome.text}
    if outcome.tool_calls:
        message["tool_calls"] = [t.as_message_part() for t in outcome.tool_calls]
        if outcome.reasoning:
            # DeepSeek's thinking mode wants the reasoning back inside one turn's tool loop.
            message["reasoning_content"] = outcome.reasoning
    return message


class Agent:
    def __init__(self, store: ConversationStore, client, builder: ContextBuilder, *,
                 tools: ToolRegistry | None = None, tool_context: ToolContext | None = None,
                 guardrails: Guardrails | None = None, temperature: float | None = None,
                 compactor: Compactor | None = None):
        self.store = store
        self.client = client
        self.builder = builder
        self.tools = tools or ToolRegistry()
        self.tool_context = tool_context
        self.guardrails = guardrails or Guardrails()
        self.temperature = temperature
        self.compactor = compactor

    def _request(self, messages: list[dict]) -> ChatRequest:
        return ChatRequest(messages=messages, tools=self.tools.schemas(), temperature=self.temperature)

    def preview(self, conversation_id: int | None, user_text: str) -> tuple[dict, dict | None]:
        """The exact request body a turn would send now, without calling the model."""
        seq = None
        if conversation_id:
            seq = self.store.last_seq(conversation_id) + 1
        built = self.builder.build_messages(conversation_id, user_text, before_seq=seq)
        info = context_summary_json(built)
        return self.client.body_for(self._request(built.messages)), (json.loads(info) if info else None)

    def run_turn(self, conversation_id: int, user_text: str, sink: TurnSink | None = None, *,
                 retry_partial: bool = False) -> TurnResult:
        sink = sink or SilentSink()
        turn = self.store.start_turn(conversation_id, user_text)
        if self.compactor is not None:
            compaction = self.compactor.maybe_compact(conversation_id, turn)
            if compaction is not None:
                sink.notice(f"对话较长：已把第 {compaction.upto_seq} 轮及之前的 {compaction.turns} 轮压缩为摘要"
                            f"（{'模型生成' if compaction.method == 'model' else '摘录'}），"
                            f"历史从约 {compaction.tokens_before:,} 降到 {compaction.tokens_after:,} tokens。")
        built = self.builder.build_messages(conversation_id, user_text, before_seq=turn.seq)
        messages = list(built.messages)
        first_new = 1 + built.history_count
        context_json = context_summary_json(built)
        self.builder.domain.count_injection(
            [int(m.split(":")[1]) for m in built.memory_ids if m.startswith("note:")])
        usages: list[Usage] = []
        notices: list[str] = []
        seen_calls: dict[tuple[str, str], int] = {}
        latency = 0.0
        status, error, reply = "complete", None, ""
        limit = self.guardrails.max_steps

        attempts = 0
        for step in range(limit):  # max_steps model calls, no more
            request = self._request(messages)
            call = self._call(turn, conversation_id, step, request, context_json, sink, retry_partial)
            outcome, call_status, call_error = call.outcome, call.status, call.error
            attempts += call.attempts
            usages.append(outcome.usage)
            latency += outcome.latency_ms or 0.0
            reply = outcome.text
            if call_status != "complete":
                status, error = ("error" if call_status == "error" else "interrupted"), call_error
                break
            if not outcome.tool_calls:
                messages.append(assistant_message(outcome))
                break
            messages.append(assistant_message(outcome))
            if step == limit - 1:
                # The last call allowed asked for tools anyway: stop here rather than loop on.
                reply = outcome.text or STEP_LIMIT_NOTE.format(n=limit).split("：")[0] + "，已停止。"
                notices.append(reply)
                sink.notice(reply)
                messages.pop()
                messages.append({"role": "assistant", "content": reply})
                break
            for call in outcome.tool_calls:
                run = run_tool(self.tools, self.tool_context, call, seen_calls, step, self.guardrails)
                content = run.content
                if step == limit - 2:  # these results go to the last call allowed
                    content = json.dumps({"result": json.loads(content), "note": STEP_LIMIT_NOTE.format(n=limit)},
                                         ensure_ascii=False)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
                if run.notice:
                    notices.append(run.notice)
                    sink.notice(run.notice)

        added = messages[first_new:]
        if status != "complete":
            # Keep the question and what arrived, as after Ctrl-C; a turn that failed before
            # any reply adds nothing, so the next request never carries two questions in a
            # row or a dangling tool call.
            asked = [m for m in added if m["role"] == "user"]
            added = [*asked, {"role": "assistant", "content": reply}] if reply else []
        # Count what later requests will really carry: under "drop" old blocks are not sent.
        sent_later = [m for m in added if self.builder.history_blocks != "drop" or not is_context_message(m)]
        self.store.finish_turn(turn.id, status=status, reply_text=reply, messages=added, error=error,
                               history_tokens=turn_history_tokens(sent_later))
        return TurnResult(conversation_id, turn.id, turn.seq, reply, status, error, sum_usage(usages),
                          latency, len(usages), tuple(notices), attempts)

    def _call(self, turn, conversation_id: int, step: int, request: ChatRequest, context_json: str | None,
              sink: TurnSink, retry_partial: bool) -> "CallResult":
        """One model call. With `retry_partial`, a reply that broke after part of it arrived is
        asked for again (same request, a new call row; the broken one stays, labelled), as long
        as the client's retry budget lasts; otherwise that part is kept and the call fails."""
        used, latency = 0, 0.0
        while True:
            outcome = CallOutcome()
            call_id = self.store.start_call(
                turn_id=turn.id, conversation_id=conversation_id, step=step, provider=self.client.provider,
                model=self.client.model, request_json=json.dumps(self.client.body_for(request), ensure_ascii=False),
                context_json=context_json if step == 0 else None)
            status, error, after_output = self._stream_call(call_id, request, outcome, sink, used)
            used += max(outcome.attempts, 1)
            latency += outcome.latency_ms or 0.0
            retry = (status == "error" and after_output and retry_partial
                     and used <= self.client.policy.max_retries)
            self.store.finish_call(
                call_id, status=status, reply_text=outcome.text, reasoning_text=outcome.reasoning,
                tool_calls=[t.as_message_part() for t in outcome.tool_calls], finish_reason=outcome.finish_reason,
                usage=outcome.usage, ttft_ms=outcome.ttft_ms, latency_ms=outcome.latency_ms,
                error=f"{error}{RETRIED_PARTIAL}" if retry else error,
                request_json=outcome.request_json or None)
            explain_finished_call(self.store, call_id)
            if not retry:
                outcome.latency_ms = latency
                return CallResult(outcome, status, error, used)
            sink.retrying(RETRYING)
            time.sleep(self.client.policy.delay(used, None) or 0.0)

    def _stream_call(self, call_id: int, request: ChatRequest, outcome: CallOutcome, sink: TurnSink,
                     retries_used: int) -> tuple[str, str | None, bool]:
        saved_at = time.monotonic()
        try:
            for kind, delta in self.client.stream(request, outcome, retries_used=retries_used):
                if kind == "retry":
                    sink.retrying(delta)
                    continue
                (sink.reasoning if kind == "reasoning" else sink.text)(delta)
                if time.monotonic() - saved_at >= PARTIAL_SAVE_SECONDS:
                    # SIGKILL cannot be caught: keep what has arrived on disk as it arrives.
                    self.store.save_partial(call_id, outcome.text, outcome.reasoning)
                    saved_at = time.monotonic()
        except LLMError as exc:
            return "error", str(exc), exc.after_output
        except KeyboardInterrupt:
            return "interrupted", "用户按 Ctrl-C 中断了回复", False
        except BrokenPipeError:  # the reader went away (`pixiu ask … | head`)
            return "interrupted", "输出管道已关闭", False
        return "complete", None, False


@dataclass(frozen=True)
class CallResult:
    outcome: CallOutcome
    status: str
    error: str | None
    attempts: int
