"""/retry: ask the last turn's question again after it was cut off or failed (the use case
is services/ask.py's `retry`)."""

from __future__ import annotations

from contextlib import contextmanager

from pixiu_cli.repl.registry import CommandError, ParsedCommand, registry
from pixiu_cli.repl.state import ReplState
from pixiu_cli.repl.turn import show_asked
from pixiu_cli.services.ask import RETRIED_LABEL, RetryRequest, retry
from pixiu_cli.views.turn_end import RETRY_HINT

__all__ = ["RETRIED_LABEL", "RETRY_HINT", "retry_command"]
REFUSED = {
    "no_turn": "当前对话还没有可以重试的一轮",
    "complete": "第 {seq} 轮已完整回答，无需重试",
    "busy": "第 {seq} 轮正在由另一个 pixiu 进程回答，请稍后再试",
}


@registry.command("retry", "重新生成上一轮中断或出错的回答（原来的部分回答保留在记录中）")
def retry_command(state: ReplState, cmd: ParsedCommand) -> None:
    if cmd.args:
        raise CommandError("用法：/retry（不带参数，重试上一轮）")

    @contextmanager
    def reply(turn):
        state.renderer.dim(f"重新提问第 {turn.seq} 轮：{turn.user_text[:60]}")
        with state.renderer.reply() as stream:
            yield stream

    request = RetryRequest(state.conversation_id)
    done = retry(request, state.app, reply, home=state.app.settings.home, now=state.clock())
    if done.refused is not None:
        raise CommandError(REFUSED[done.refused].format(seq=done.retried.seq if done.retried else ""))
    show_asked(state, done.asked)
