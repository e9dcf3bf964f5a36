"""A question (`pixiu ask`, a REPL turn: services/ask.py) is written to PIXIU_HOME/unsent/
before anything can wait on the database's write lock, and removed once the turn is over:
when another pixiu process holds the lock past the busy timeout, the question is still on
disk, and the one-line error says where.

Conversations: which one to continue (`chat --resume/--continue`, `ask --conversation/
--continue`, `/resume`), and the recent ones to list (`/sessions`). Continuing one closes
the turns a crashed process left pending, so the history the model sees is whole.

The conversation's use cases: `ask` (a question: `pixiu ask`, a line typed in the REPL)
and `retry` (/retry: the last turn's question again after it was cut off or failed). Each
is written once, here; the surfaces parse, call and hand the result to a view.

A question is kept in PIXIU_HOME/unsent/ before anything can wait on the database's write
lock and removed once its turn is stored: a turn that cannot be stored (the lock held past
the busy timeout, a full disk, a restore by another process) leaves the question on disk
and says so in its result, never losing it. Ctrl-C outside the reply's stream closes the
turn as interrupted, keeping what arrived."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pixiu_cli.conversation.store import Conversation, ConversationStore, RestoredElsewhere, Turn
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.resources import write_private
from pixiu_cli.kernel.store.database import DISK_FULL, disk_full, lock_timeout_line
from pixiu_cli.market.calendar import SHANGHAI


def keep(home: Path, text: str, now: datetime) -> Path:
    """The question in unsent/, whole or not at all: a full disk leaves no empty or cut-off
    file that would look like a kept question."""

    folder = home / "unsent"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = folder / f"{now.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.txt"
    write_private(path, text.encode("utf-8", "replace"), durable=True)
    return path


def sent(path: Path | None) -> None:
    if path is not None:
        path.unlink(missing_ok=True)


def not_stored(exc: BaseException) -> bool:
    """The turn failed because it could not be written (the lock held past the busy timeout,
    a full disk, a restore by another process): the question is worth keeping."""

    return (
        bool(lock_timeout_line(exc))
        or disk_full(exc)
        or str(exc) == DISK_FULL  # write_transaction's StoreError for a full disk
        or isinstance(exc, RestoredElsewhere)
    )


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

    try:
        moment = datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return str(stamp)[:16]
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return moment.astimezone(SHANGHAI).strftime("%Y-%m-%d %H:%M")


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
