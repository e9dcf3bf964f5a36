"""One turn: persist the user's message, build the messages, call the model, run the tools
it asks for, repeat until it answers in text. Errors become a stored, visible outcome —
a tool result for the model or a line for the user — never a crash, and whatever arrived
before an interruption is kept."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

from pixiu_cli.conversation.agent.calls import (
    PARTIAL_SAVE_SECONDS,
    RETRIED_PARTIAL,
    CallResult,
    ModelCaller,
    SilentSink,
    TurnSink,
    TurnStopped,
)
from pixiu_cli.conversation.agent.compaction import Compaction, Compactor, turn_history_tokens
from pixiu_cli.conversation.agent.guardrails import Guardrails, run_tool
from pixiu_cli.conversation.agent.preview import RequestPreview, context_summary_json
from pixiu_cli.conversation.agent.tools import ToolContext, ToolRegistry
from pixiu_cli.conversation.context.builder import BuiltMessages, ContextBuilder, sent_back
from pixiu_cli.conversation.context.quoting import clipped_message, clipped_notice
from pixiu_cli.conversation.llm.model import ChatModel
from pixiu_cli.conversation.llm.types import CallOutcome, ChatRequest, ToolCall, Usage
from pixiu_cli.conversation.store import ConversationStore, Turn

__all__ = ["PARTIAL_SAVE_SECONDS", "RETRIED_PARTIAL", "Agent", "CallResult", "SilentSink", "TurnResult", "TurnSink"]

STEP_LIMIT_NOTE = "已达到本轮工具调用上限（{n} 步）：请不要再调用工具，根据已有信息直接回答用户。"


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
    call_rows: tuple = ()  # every call row of the turn (conversation/store.py UsageRow): its cost, priced here


def sum_usage(usages: list[Usage]) -> Usage:
    def total(name: str) -> int | None:
        values = [getattr(u, name) for u in usages]
        return None if not values or any(v is None for v in values) else sum(values)

    return Usage(
        total("prompt_tokens"), total("completion_tokens"), total("cache_hit_tokens"), total("cache_miss_tokens")
    )


def assistant_message(outcome: CallOutcome) -> dict:
    message: dict = {"role": "assistant", "content": outcome.text}
    if outcome.tool_calls:
        message["tool_calls"] = [t.as_message_part() for t in outcome.tool_calls]
    if outcome.reasoning:
        # Kept as received: a turn that calls tools must send it back in every later request
        # (DeepSeek's thinking mode answers 400 otherwise); `TurnProgress.kept` drops it from
        # a turn without tool calls, where it would only cost tokens.
        message["reasoning_content"] = outcome.reasoning
    return message


@dataclass
class TurnProgress:
    """What a turn has so far: the messages of its next request and what its calls added up to."""

    messages: list[dict] = field(default_factory=list)
    first_new: int = 0  # messages[first_new:] are this turn's own
    context_json: str | None = None
    built: BuiltMessages | None = None
    reply: str = ""
    usages: list[Usage] = field(default_factory=list)
    rows: list = field(default_factory=list)  # UsageRow of each call row, the summary's too
    latency: float = 0.0
    attempts: int = 0
    notices: list[str] = field(default_factory=list)
    seen_calls: dict[tuple[str, str], int] = field(default_factory=dict)
    deadline: float | None = None  # time.monotonic() by which the turn's calls must end
    tools: ToolContext | None = None  # the tools' stores, with the user's words of this turn

    def record(self, result: CallResult) -> None:
        self.attempts += result.attempts
        self.usages.append(result.outcome.usage)
        self.rows.extend(result.rows)
        self.latency += result.outcome.latency_ms or 0.0
        self.reply = result.outcome.text

    def result(self, turn: Turn, status: str, error: str | None) -> TurnResult:
        return TurnResult(
            turn.conversation_id,
            turn.id,
            turn.seq,
            self.reply,
            status,
            error,
            sum_usage(self.usages),
            self.latency,
            len(self.usages),
            tuple(self.notices),
            self.attempts,
            tuple(self.rows),
        )

    def notice(self, line: str, sink: TurnSink) -> None:
        self.notices.append(line)
        sink.notice(line)

    def kept(self, status: str) -> list[dict]:
        """The messages the turn adds to the history. A turn that did not complete keeps the
        question and what arrived, as after Ctrl-C; one that failed before any reply adds
        nothing, so the next request never carries two questions in a row or a dangling
        tool call."""
        added = self.messages[self.first_new :]
        if status == "complete":
            return sent_back(added)
        asked = [m for m in added if m["role"] == "user"]
        return [*asked, {"role": "assistant", "content": self.reply}] if self.reply else []


def compaction_notice(compaction: Compaction) -> str:
    return (
        f"对话较长：已把第 {compaction.upto_seq} 轮及之前的 {compaction.turns} 轮压缩为摘要"
        f"（{'模型生成' if compaction.method == 'model' else '摘录'}），"
        f"历史从约 {compaction.tokens_before:,} 降到 {compaction.tokens_after:,} tokens。"
    )


def with_step_limit_note(content: str, limit: int) -> str:
    return json.dumps({"result": json.loads(content), "note": STEP_LIMIT_NOTE.format(n=limit)}, ensure_ascii=False)


class Agent:
    def __init__(
        self,
        store: ConversationStore,
        client: ChatModel,
        builder: ContextBuilder,
        *,
        tools: ToolRegistry | None = None,
        tool_context: ToolContext | None = None,
        guardrails: Guardrails | None = None,
        temperature: float | None = None,
        compactor: Compactor | None = None,
    ):
        self.store = store
        self.client = client
        self.builder = builder
        self.tools = tools or ToolRegistry()
        self.tool_context = tool_context
        self.guardrails = guardrails or Guardrails()
        self.temperature = temperature
        self.compactor = compactor

    @property
    def caller(self) -> ModelCaller:
        return ModelCaller(self.store, self.client)

    def _requests(self) -> RequestPreview:
        return RequestPreview(self.store, self.builder, self.client, self.tools, self.temperature)

    def _request(self, messages: list[dict]) -> ChatRequest:
        return self._requests().request(messages)

    def preview(self, conversation_id: int | None, user_text: str) -> tuple[dict, dict | None]:
        """The exact request body a turn would send now, without calling the model."""
        return self._requests().preview(conversation_id, user_text)

    def run_turn(
        self, conversation_id: int, user_text: str, sink=None, *, retry_partial=False, user_spoke=True
    ) -> TurnResult:
        """Call the model until it answers in text (a tool step after each call asking for tools),
        at most max_steps calls; a failed or interrupted call stops the turn, keeping what arrived.
        A tool's change must come from `user_text`; none with `user_spoke=False` (pixiu's brief)."""
        sink = sink or SilentSink()
        turn = self.store.start_turn(conversation_id, user_text)
        # the deadline bounds the whole turn, every call and retry in it (`pixiu ask` is one turn)
        deadline = time.monotonic() + self.caller.client.policy.deadline_seconds
        progress = TurnProgress(deadline=deadline, tools=self._tools_for(user_text if user_spoke else None))
        status, error = "complete", None
        try:
            self._prepare(turn, progress, sink)
            for step in range(self.guardrails.max_steps):  # max_steps model calls, no more
                outcome = self._call_step(turn, step, progress, sink, retry_partial)
                if not outcome.tool_calls or self._stopped_at_limit(step, outcome, progress, sink):
                    break
                self._tool_step(step, outcome.tool_calls, progress, sink)
        except TurnStopped as stop:
            status, error = stop.status, stop.error
        self._finish(turn, progress, status, error, sink)
        return progress.result(turn, status, error)

    def _tools_for(self, said: str | None) -> ToolContext | None:
        return self.tool_context.for_turn(said) if self.tool_context is not None else None

    def _prepare(self, turn: Turn, progress: TurnProgress, sink: TurnSink) -> None:
        """Compact the history if it is due, then build the turn's first request."""
        conversation = self.store.get_conversation(turn.conversation_id)
        if self.compactor is not None and conversation is not None:
            compaction = self.compactor.maybe_compact(conversation, turn)
            if compaction is not None:
                progress.rows.extend(compaction.rows)
                sink.notice(compaction_notice(compaction))
                conversation = compaction.applied_to(conversation)
        built = self.builder.build_messages(
            turn.conversation_id, turn.user_text, before_seq=turn.seq, conversation=conversation
        )
        progress.built, progress.messages = built, list(built.messages)
        progress.first_new = 1 + built.history_count
        progress.context_json = context_summary_json(built)
        self.builder.count_injection(built)

    def _call_step(
        self, turn: Turn, step: int, progress: TurnProgress, sink: TurnSink, retry_partial: bool
    ) -> CallOutcome:
        result = self.caller.call(
            turn,
            step,
            self._request(progress.messages),
            sink,
            context_json=progress.context_json if step == 0 else None,
            retry_partial=retry_partial,
            deadline=progress.deadline,
        )
        progress.record(result)
        if result.status != "complete":
            raise result.stop()
        # the turn's next request carries no more of a reply than later turns do
        progress.messages.append(clipped_message(assistant_message(result.outcome)))
        return result.outcome

    def _stopped_at_limit(self, step: int, outcome: CallOutcome, progress: TurnProgress, sink: TurnSink) -> bool:
        """The last call allowed asked for tools anyway: stop here rather than loop on."""
        limit = self.guardrails.max_steps
        if step < limit - 1:
            return False
        progress.reply = outcome.text or STEP_LIMIT_NOTE.format(n=limit).split("：")[0] + "，已停止。"
        progress.notice(progress.reply, sink)
        progress.messages[-1] = {"role": "assistant", "content": progress.reply}
        return True

    def _tool_step(self, step: int, calls: list[ToolCall], progress: TurnProgress, sink: TurnSink) -> None:
        limit = self.guardrails.max_steps
        for call in calls:
            run = run_tool(self.tools, progress.tools, call, progress.seen_calls, step, self.guardrails)
            content = run.content
            if step == limit - 2:  # these results go to the last call allowed
                content = with_step_limit_note(content, limit)
            progress.messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
            if run.notice:
                progress.notice(run.notice, sink)

    def _finish(self, turn: Turn, progress: TurnProgress, status: str, error: str | None, sink: TurnSink) -> None:
        # A reply of megabytes is kept whole as the turn's reply; its history message is clipped.
        added = [clipped_message(m) for m in progress.kept(status)]
        if (clipped := clipped_notice(progress.reply)) is not None:
            progress.notice(clipped, sink)
        # Count what later requests will really carry.
        history_tokens = turn_history_tokens(self.builder.carried_later(added))
        block = progress.built.block_record(added) if progress.built else None
        self.store.finish_turn(
            turn.id,
            status=status,
            reply_text=progress.reply,
            messages=added,
            error=error,
            history_tokens=history_tokens,
            block=block,
        )
