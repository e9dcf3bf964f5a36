"""One chat turn in the REPL (typed, or asked again by /retry), and the one line an error
that ended a command or a turn leaves."""

from __future__ import annotations

from contextlib import nullcontext

from pixiu_cli.conversation.ask import AskRequest, AskResult, ask
from pixiu_cli.conversation.presenters import error_line
from pixiu_cli.conversation.views import RETRY_HINT, show_interrupted, show_kept, show_turn_end
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.render import StatusFigures
from pixiu_cli.memory.proposals import accept_change, pending_changes
from pixiu_cli.memory.views import change_question, show_change_left
from pixiu_cli.repl.state import ReplState

__all__ = ["RETRY_HINT", "recover", "run_chat_turn", "show_asked", "turn_status"]


def run_chat_turn(state: ReplState, text: str) -> None:
    """A typed question (services/ask.py): a question that cannot be stored is kept in
    PIXIU_HOME/unsent/ as `pixiu ask` keeps it, or, when not even that can be written, put
    back at the prompt: never discarded."""
    seat = nullcontext((state.app, state.conversation_id))
    request = AskRequest(text)
    before = _memory_mark(state)
    result = ask(request, seat, state.renderer.reply(), home=state.app.settings.home, now=state.clock())
    show_asked(state, result)
    if result.turn is not None and before is not None:
        confirm_changes(state, before)


def _memory_mark(state: ReplState) -> int | None:
    """The last memory id before the turn (its proposals are the ones after); None when the
    database cannot be read now, so the question still goes to `ask`, which keeps it."""
    try:
        return state.app.memory.last_event_id()
    except Exception:
        return None  # the proposals wait in /memory, their notices say how to accept them


def _answer(state: ReplState, question: str) -> bool:
    """y/N: Ctrl-C or Ctrl-D at the question is a no."""
    try:
        return (state.answer_key or state.renderer.confirm)(question)
    except (KeyboardInterrupt, EOFError):
        return False


def confirm_changes(state: ReplState, after_id: int) -> None:
    """Each change to the account the turn's model proposed, asked y/N with its arguments: a
    yes makes it (once, services/proposals.py), a no leaves it pending in /memory."""

    memory = state.app.memory
    for proposal in pending_changes(memory, after_id):
        if not _answer(state, change_question(proposal)):
            show_change_left(state.renderer, proposal.ref)
            continue
        try:
            settings = state.app.settings
            done = accept_change(memory, proposal.event, state.stamp(), settings.commission)
        except RequestError as exc:
            state.renderer.error(str(exc))
            continue
        state.renderer.info(done.notice())


def show_asked(state: ReplState, result: AskResult) -> None:
    """What a question (or /retry) leaves on the screen: the turn's end and its status line,
    or the one line of what kept it from being stored and where the question is."""
    state.conversation_id = result.conversation_id
    if result.unstored is not None:
        recover(state, result.unstored)
        if result.kept is None:
            state.retype = result.text
        show_kept(state.renderer, result.kept)
    elif result.interrupted:
        show_interrupted(state.renderer)
    else:
        show_turn_end(state.renderer, result.turn.status, result.turn.error)
        state.renderer.status(turn_status(state, result.turn))


def turn_status(state: ReplState, result) -> StatusFigures:
    """The status line of a turn (a question, a retry, the brief): tokens, cache hit, time, cost."""
    return StatusFigures(
        result.usage.prompt_tokens,
        result.usage.cache_hit_tokens,
        result.usage.completion_tokens,
        result.latency_ms,
        result.calls,
        _cost(state, result),
    )


def _cost(state: ReplState, result) -> str | None:
    """The turn's calls priced as the turn kept them: nothing is read back."""
    from pixiu_cli.account.report import money_text, rows_cost

    prices = state.app.prices
    cost = rows_cost(result.call_rows, prices)
    return None if cost is None else money_text(cost, prices.currency)


def recover(state: ReplState, exc: Exception) -> None:
    """One line for an error that ended a command or a turn (see error_line)."""
    line = error_line(exc)
    try:
        state.app.store.fail_own_pending(line)
    except Exception:
        pass  # e.g. the disk is still full: the turn is labelled when the conversation reopens
    state.renderer.error(line)
