"""What a question leaves on the screen once services/ask.py returns: how a turn that did not
complete ended, and where a question that could not be stored was kept."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from pixiu_cli.kernel.render import Renderer

RETRY_HINT = "输入 /retry 重新生成这一轮（已收到的部分会保留在记录中）。"


def ask_kept_line(line: str, kept: Path) -> str:
    """`pixiu ask`'s one error line when the turn could not be stored: the cause, then where
    the question is and how to send it again."""
    return f"{line.rstrip('。')}。你的问题已保存在 {kept}（pixiu ask - < 该文件 可重发）"


def show_kept(renderer: Renderer, kept: Path | None) -> None:
    """The REPL's line after the cause: the question in unsent/, or put back at the prompt."""
    if kept is not None:
        renderer.dim(f"你的问题已保存在 {kept}（可复制后重新发送）")
    else:
        renderer.dim("你的问题未能保存，已放回输入框。")


def show_interrupted(renderer: Renderer) -> None:
    """Ctrl-C outside the reply's stream (while saving or assembling context)."""
    renderer.info("已中断。")


def show_turn_end(renderer: Renderer, status: str, error: str | None) -> None:
    """A REPL turn that did not complete: how it ended, and that /retry asks it again."""
    if status == "interrupted":
        renderer.info("已中断，收到的部分已保存。")
    elif status == "error":
        renderer.error(error or "未知错误")
    if status != "complete":
        renderer.dim(RETRY_HINT)


@contextmanager
def retried_then_reply(renderer: Renderer, turn):
    """/retry: which turn is asked again, then the new reply streamed below it."""
    renderer.dim(f"重新提问第 {turn.seq} 轮：{turn.user_text[:60]}")
    with renderer.reply() as stream:
        yield stream
