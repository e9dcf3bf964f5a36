"""The conversation's use cases: `ask` (a question: `pixiu ask`, a line typed in the REPL)
and `retry` (/retry: the last turn's question again after it was cut off or failed). Each
is written once, here; the surfaces parse, call and hand the result to a view.

A question is kept in PIXIU_HOME/unsent/ before anything can wait on the database's write
lock and removed once its turn is stored: a turn that cannot be stored (the lock held past
the busy timeout, a full disk, a restore by another process) leaves the question on disk
and says so in its result, never losing it. Ctrl-C outside the reply's stream closes the
turn as interrupted, keeping what arrived."""

from __future__ import annotations

import errno
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pixiu_cli.conversation.conversations import start_conversation
from pixiu_cli.conversation.store import ConversationStore, RestoredElsewhere, Turn
from pixiu_cli.conversation.unsent import keep, not_stored, sent

if TYPE_CHECKING:  # the loop is the app's to import: a surface may not need it yet
    from pixiu_cli.conversation.agent.calls import TurnSink
    from pixiu_cli.conversation.agent.loop import TurnResult

# Stored with the turns they close (what /context and a resumed conversation show).
INTERRUPTED = "用户按 Ctrl-C 中断了回复"
RETRIED_LABEL = "（已用 /retry 重新生成，见第 {seq} 轮）"


class Conversing(Protocol):
    """What a turn needs of the app (app.App): the agent, the conversations, the model."""

    agent: object  # agent/loop.py Agent: run_turn
    store: ConversationStore
    settings: object  # model

    @property
    def model_switched(self) -> bool: ...


Seat = tuple[Conversing, int | None]  # the app and the conversation to continue (None: a new one)


@dataclass(frozen=True)
class AskRequest:
    text: str
    retry_partial: bool = False  # a reply cut off mid-stream is asked again within the turn
    # A full disk that cannot keep the question stops before asking: `pixiu ask` has no other
    # place to put it, the REPL puts it back at the prompt.
    must_keep: bool = False


@dataclass(frozen=True)
class AskResult:
    text: str
    conversation_id: int | None  # None: none was started, or a restore elsewhere replaced them
    turn: TurnResult | None  # None: the turn did not run to its end (see below)
    model: str | None = None  # the model the turn went to
    unstored: Exception | None = None  # the error that kept the turn from being stored
    kept: Path | None = None  # where the question waits in unsent/ (with `unstored`; None: nowhere)
    interrupted: bool = False  # Ctrl-C outside the reply's stream: closed as interrupted

    @property
    def complete(self) -> bool:
        return self.turn is not None and self.turn.status == "complete"


def keep_question(home: Path, text: str, now: datetime, must_keep: bool) -> Path | None:
    """The question in unsent/, or None where nothing can be written (a read-only home)."""
    try:
        return keep(home, text, now)
    except OSError as exc:
        if must_keep and exc.errno == errno.ENOSPC:
            raise  # a full disk: one line saying so, nothing half-stored
        return None


def ask(
    request: AskRequest,
    opened: AbstractContextManager[Seat],
    reply: AbstractContextManager[TurnSink],
    *,
    home: Path,
    now: datetime,
) -> AskResult:
    """One turn: the question kept, the app opened (`opened`, entered only after the question
    is on disk), the turn run with its reply streamed to `reply` (entered around the turn)."""
    kept = keep_question(home, request.text, now, request.must_keep)
    conversation_id = None
    try:
        with opened as (workspace, conversation_id):
            if conversation_id is None:
                conversation_id = start_conversation(
                    workspace.store, workspace.settings.model, workspace.model_switched
                )
            result = _turn(workspace, conversation_id, request, reply)
    except Exception as exc:
        if not not_stored(exc):
            sent(kept)
            raise
        elsewhere = isinstance(exc, RestoredElsewhere)  # the restored database has its own conversations
        return AskResult(request.text, None if elsewhere else conversation_id, None, unstored=exc, kept=kept)
    sent(kept)
    return result


def _turn(workspace: Conversing, conversation_id: int, request: AskRequest, reply) -> AskResult:
    model = workspace.settings.model
    try:
        with reply as sink:
            turn = workspace.agent.run_turn(conversation_id, request.text, sink, retry_partial=request.retry_partial)
    except KeyboardInterrupt:
        # Ctrl-C outside the stream itself (while saving or assembling context).
        workspace.store.fail_own_pending(INTERRUPTED, status="interrupted")
        return AskResult(request.text, conversation_id, None, model, interrupted=True)
    return AskResult(request.text, conversation_id, turn, model)


@dataclass(frozen=True)
class RetryRequest:
    conversation_id: int | None  # the conversation whose last turn is asked again


@dataclass(frozen=True)
class RetryResult:
    refused: str | None  # "no_turn" | "complete" | "busy": nothing was asked, nothing changed
    retried: Turn | None  # the turn asked again (its seq, its question)
    asked: AskResult | None


def retry(
    request: RetryRequest,
    workspace: Conversing,
    reply: Callable[[Turn], AbstractContextManager[TurnSink]],
    *,
    home: Path,
    now: datetime,
) -> RetryResult:
    """Ask the last turn's question again when it did not complete: the old turn keeps its
    partial reply and calls on record, labelled, but leaves the history. `reply(turn)` is
    entered around the new turn (a surface says which turn is retried there)."""
    store = workspace.store
    turns = store.turns(request.conversation_id) if request.conversation_id is not None else []
    if not turns:
        return RetryResult("no_turn", None, None)
    last = turns[-1]
    if last.status == "complete":
        return RetryResult("complete", last, None)
    if last.status == "pending" and not store.mark_stale_pending(request.conversation_id):
        return RetryResult("busy", last, None)  # another pixiu process is answering it
    store.label_retried(last.id, RETRIED_LABEL.format(seq=last.seq + 1))
    seat = nullcontext((workspace, request.conversation_id))
    asked = ask(AskRequest(last.user_text), seat, reply(last), home=home, now=now)
    return RetryResult(None, last, asked)
