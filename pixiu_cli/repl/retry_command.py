"""/retry: ask the last turn's question again after it was cut off or failed."""

from __future__ import annotations

from pixiu_cli.repl.commands import CommandError, ParsedCommand, registry
from pixiu_cli.repl.state import ReplState
from pixiu_cli.repl.turn import RETRY_HINT, run_chat_turn

__all__ = ["RETRIED_LABEL", "RETRY_HINT", "retry_command"]
RETRIED_LABEL = "（已用 /retry 重新生成，见第 {seq} 轮）"


@registry.command("retry", "重新生成上一轮中断或出错的回答（原来的部分回答保留在记录中）")
def retry_command(state: ReplState, cmd: ParsedCommand) -> None:
    if cmd.args:
        raise CommandError("用法：/retry（不带参数，重试上一轮）")
    store = state.app.store
    turns = store.turns(state.conversation_id) if state.conversation_id is not None else []
    if not turns:
        raise CommandError("当前对话还没有可以重试的一轮")
    last = turns[-1]
    if last.status == "complete":
        raise CommandError(f"第 {last.seq} 轮已完整回答，无需重试")
    if last.status == "pending" and not store.mark_stale_pending(state.conversation_id):
        raise CommandError(f"第 {last.seq} 轮正在由另一个 pixiu 进程回答，请稍后再试")
    store.label_retried(last.id, RETRIED_LABEL.format(seq=last.seq + 1))
    state.renderer.dim(f"重新提问第 {last.seq} 轮：{last.user_text[:60]}")
    run_chat_turn(state, last.user_text)
