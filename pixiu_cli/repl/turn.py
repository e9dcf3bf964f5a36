"""One chat turn in the REPL (typed, or asked again by /retry), and the one line an error
that ended a command or a turn leaves."""

from __future__ import annotations

from pixiu_cli.repl.state import ReplState
from pixiu_cli.services.unsent import keep_if_possible, not_stored, sent
from pixiu_cli.store.conversations import RestoredElsewhere
from pixiu_cli.views.presenters import error_line
from pixiu_cli.views.render import StatusFigures

RETRY_HINT = "输入 /retry 重新生成这一轮（已收到的部分会保留在记录中）。"


def run_chat_turn(state: ReplState, text: str) -> None:
    """A question that cannot be stored (full disk, lock timeout, a restore elsewhere) is kept
    in PIXIU_HOME/unsent/ as `pixiu ask` keeps it, or, when not even that can be written, put
    back at the prompt: never discarded."""
    spool = keep_if_possible(state.app.settings.home, text, state.clock())
    try:
        _run(state, text)
    except Exception as exc:
        if not not_stored(exc):
            sent(spool)
            raise
        recover(state, exc)
        if isinstance(exc, RestoredElsewhere):
            state.conversation_id = None  # the restored database has its own conversations
        if spool is not None:
            state.renderer.dim(f"你的问题已保存在 {spool}（可复制后重新发送）")
        else:
            state.retype = text
            state.renderer.dim("你的问题未能保存，已放回输入框。")
        return
    sent(spool)


def _run(state: ReplState, text: str) -> None:
    conversation_id = state.ensure_conversation()
    renderer = state.renderer
    try:
        with renderer.reply() as stream:
            result = state.app.agent.run_turn(conversation_id, text, stream)
    except KeyboardInterrupt:
        # Ctrl-C outside the stream itself (while saving or assembling context).
        state.app.store.fail_own_pending("用户按 Ctrl-C 中断了回复", status="interrupted")
        renderer.info("已中断。")
        return
    if result.status == "interrupted":
        renderer.info("已中断，收到的部分已保存。")
    elif result.status == "error":
        renderer.error(result.error or "未知错误")
    if result.status != "complete":
        renderer.dim(RETRY_HINT)
    renderer.status(turn_status(state, result))


def turn_status(state: ReplState, result) -> StatusFigures:
    """The status line of a turn (a question, a retry, the brief): tokens, cache hit, time, cost."""
    return StatusFigures(
        result.usage.prompt_tokens,
        result.usage.cache_hit_tokens,
        result.usage.completion_tokens,
        result.latency_ms,
        result.calls,
        _cost(state, result.turn_id),
    )


def _cost(state: ReplState, turn_id: int) -> str | None:
    from pixiu_cli.accounting.report import money_text, turn_cost

    prices = state.app.prices
    cost = turn_cost(state.app.store, turn_id, prices)
    return None if cost is None else money_text(cost, prices.currency)


def recover(state: ReplState, exc: Exception) -> None:
    """One line for an error that ended a command or a turn (see error_line)."""
    line = error_line(exc)
    try:
        state.app.store.fail_own_pending(line)
    except Exception:
        pass  # e.g. the disk is still full: the turn is labelled when the conversation reopens
    state.renderer.error(line)
