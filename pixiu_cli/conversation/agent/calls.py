"""One model call as the store records it: start_call → stream (what arrives is saved as it
arrives) → finish_call → its cache explanation. The turn's calls and the summary call of
compaction both go through here. The request body is built once per call: the same body
is stored and sent."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol

from pixiu_cli.account.explain import explain_finished_call
from pixiu_cli.conversation.llm.client import RETRYING
from pixiu_cli.conversation.llm.model import ChatModel, request_json
from pixiu_cli.conversation.llm.types import CallOutcome, ChatRequest, LLMError
from pixiu_cli.conversation.store import ConversationStore, Turn, UsageRow, utc_stamp

# While a reply streams, what has arrived is saved at most this often (a killed process
# loses at most this much of what was shown; a fast reply is never saved half-way).
PARTIAL_SAVE_SECONDS = 0.25
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


class ReaderSafeSink:
    """A sink whose reader may go away (`pixiu ask … | head -1`): after the first
    BrokenPipeError nothing more is shown, but the turn goes on to its end, tool calls
    and all; only the output was cut. `gone` says whether that happened."""

    def __init__(self, sink: TurnSink):
        self.sink = sink
        self.gone = False

    def _send(self, method: str, value: str) -> None:
        if self.gone:
            return
        try:
            getattr(self.sink, method)(value)
        except BrokenPipeError:
            self.gone = True

    def reasoning(self, delta: str) -> None:
        self._send("reasoning", delta)

    def text(self, delta: str) -> None:
        self._send("text", delta)

    def notice(self, line: str) -> None:
        self._send("notice", line)

    def retrying(self, line: str) -> None:
        self._send("retrying", line)


class TurnStopped(Exception):
    """A call failed or was interrupted and the turn ends there: `status` is "error" or
    "interrupted", `error` the line for the user."""

    def __init__(self, status: str, error: str | None):
        super().__init__(error)
        self.status = status
        self.error = error


@dataclass(frozen=True)
class CallResult:
    outcome: CallOutcome
    status: str  # complete | error | interrupted
    error: str | None
    attempts: int  # HTTP requests, retries included
    rows: tuple[UsageRow, ...] = ()  # each call row it made, as the usage report prices it

    def stop(self) -> TurnStopped:
        return TurnStopped("error" if self.status == "error" else "interrupted", self.error)


def _usage_row(started_at: str, outcome: CallOutcome, model: str) -> UsageRow:
    u = outcome.usage
    return UsageRow(started_at, u.prompt_tokens, u.completion_tokens, u.cache_hit_tokens, u.cache_miss_tokens, model)


class ModelCaller:
    def __init__(self, store: ConversationStore, client: ChatModel):
        self.store = store
        self.client = client

    def call(
        self,
        turn: Turn,
        step: int,
        request: ChatRequest,
        sink: TurnSink,
        *,
        context_json: str | None = None,
        retry_partial: bool = False,
        deadline: float | None = None,
    ) -> CallResult:
        """One model call. With `retry_partial`, a reply that broke after part of it arrived is
        asked for again (same request, a new call row; the broken one stays, labelled), as long
        as the client's retry budget and the deadline last; otherwise that part is kept and the
        call fails. Every attempt shares one `deadline` (time.monotonic()), the caller's or the
        deadline setting from now: six attempts once took 191 s against a 30 s deadline."""
        if deadline is None:
            deadline = time.monotonic() + self.client.policy.deadline_seconds
        body = self.client.body_for(request)
        sent = request_json(body)
        used, latency, rows = 0, 0.0, []
        while True:
            outcome = CallOutcome(request_json=sent)
            started_at = utc_stamp(self.store.clock)
            call_id = self.store.start_call(
                turn_id=turn.id,
                conversation_id=turn.conversation_id,
                step=step,
                provider=self.client.provider,
                model=self.client.model,
                request_json=sent,
                context_json=context_json,
            )
            status, error, after_output = self._stream(call_id, request, body, outcome, sink, used, deadline)
            used += max(outcome.attempts, 1)
            latency += outcome.latency_ms or 0.0
            wait = self.client.policy.delay(used, None) or 0.0
            retry = (
                status == "error"
                and after_output
                and retry_partial
                and used <= self.client.policy.max_retries
                and time.monotonic() + wait < deadline
            )
            self._finish(call_id, outcome, status, f"{error}{RETRIED_PARTIAL}" if retry else error)
            rows.append(_usage_row(started_at, outcome, self.client.model))
            if not retry:
                outcome.latency_ms = latency
                return CallResult(outcome, status, error, used, tuple(rows))
            sink.retrying(RETRYING)
            time.sleep(wait)

    def _stream(
        self,
        call_id: int,
        request: ChatRequest,
        body: dict,
        outcome: CallOutcome,
        sink: TurnSink,
        retries_used: int,
        deadline: float,
    ) -> tuple[str, str | None, bool]:
        saved_at = time.monotonic()
        try:
            events = self.client.stream(request, outcome, retries_used=retries_used, body=body, deadline=deadline)
            for kind, delta in events:
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

    def _finish(self, call_id: int, outcome: CallOutcome, status: str, error: str | None) -> None:
        self.store.finish_call(
            call_id,
            status=status,
            reply_text=outcome.text,
            reasoning_text=outcome.reasoning,
            tool_calls=[t.as_message_part() for t in outcome.tool_calls],
            finish_reason=outcome.finish_reason,
            usage=outcome.usage,
            ttft_ms=outcome.ttft_ms,
            latency_ms=outcome.latency_ms,
            error=error,
            request_json=outcome.request_json or None,
        )
        explain_finished_call(self.store, call_id)
