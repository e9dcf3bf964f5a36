"""`pixiu chat` (the REPL, the default command) and `pixiu ask` (one question, then exit)."""

from __future__ import annotations

import errno
from typing import Annotated

import typer

from pixiu_cli.cli import common


def chat(
    demo: Annotated[bool, typer.Option("--demo", help="使用演示数据库（真实 A 股名称的示例持仓）")] = False,
    resume: Annotated[int | None, typer.Option("--resume", help="继续指定 ID 的对话")] = None,
    continue_: Annotated[bool, typer.Option("--continue", "-c", help="继续最近的对话")] = False,
    model: common.ModelOpt = None,
    offline: common.OfflineOpt = False,
) -> None:
    """交互式对话（默认命令）。"""
    if resume is not None and continue_:
        raise common.CliError("--resume 和 --continue 只能选一个")
    with common.opened(model, offline, demo, resume, continue_) as (renderer, app_, conversation_id):
        from pixiu_cli.repl.loop import run_repl
        from pixiu_cli.repl.state import ReplState

        state = ReplState(app=app_, renderer=renderer, conversation_id=conversation_id)
        where = f"继续对话 {conversation_id}" if conversation_id else "新对话"
        renderer.banner(mode_line=app_.mode_line, conversation_line=f"{where} · 数据目录 {app_.settings.home}")
        if conversation_id:
            _recap(renderer, app_, conversation_id)
        run_repl(state)


def _recap(renderer, app_, conversation_id: int) -> None:
    """The recap /resume shows, for `chat --resume N` and `chat --continue`."""
    from pixiu_cli.services.conversations import resume
    from pixiu_cli.views.sessions import show_recap

    resumed = resume(app_.store, conversation_id)
    if resumed is not None:
        show_recap(renderer, resumed, app_.settings.model)


def ask(
    text: Annotated[str | None, typer.Argument(help="问题；为 - 或省略（从管道输入）时从标准输入读取")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="输出一个 JSON 对象")] = False,
    continue_: Annotated[bool, typer.Option("--continue", "-c", help="接着最近的对话问")] = False,
    conversation: Annotated[int | None, typer.Option("--conversation", help="接着指定 ID 的对话问")] = None,
    model: common.ModelOpt = None,
    offline: common.OfflineOpt = False,
    demo: common.DemoOpt = False,
    retry_partial: Annotated[
        bool | None,
        typer.Option(
            "--retry-partial/--no-retry-partial",
            help="回复中途断开时自动重新生成（--json 时默认开启）；开启后回答在完成后一次输出",
        ),
    ] = None,
) -> None:
    """问一个问题并退出（不进入交互界面）。"""
    if conversation is not None and continue_:
        raise common.CliError("--conversation 和 --continue 只能选一个")
    if text is None and common.stdin_is_terminal():
        raise common.CliError("缺少问题：pixiu ask 问题（或从管道输入：echo 问题 | pixiu ask）")
    if text is None or text == "-":
        text = common.read_stdin_text()
    common.require_utf8(text)
    if not text.strip():
        raise common.CliError("问题为空")
    from pixiu_cli.services.unsent import keep, not_stored, sent

    try:
        loaded = common.settings(model, offline)
        spool = keep(loaded.home, text, common.now(loaded))
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise  # a full disk: one line saying so, nothing half-stored
        spool = None  # a read-only home: asked all the same
    try:
        _ask(text, as_json, continue_, conversation, model, offline, demo, retry_partial)
    except Exception as exc:
        if not_stored(exc) and spool is not None:
            from pixiu_cli.views.presenters import error_line

            line = error_line(exc).rstrip("。")
            raise common.CliError(f"{line}。你的问题已保存在 {spool}（pixiu ask - < 该文件 可重发）") from None
        sent(spool)
        raise
    sent(spool)


def _ask(
    text: str,
    as_json: bool,
    continue_: bool,
    conversation: int | None,
    model: str | None,
    offline: bool,
    demo: bool,
    retry_partial: bool | None,
) -> None:
    from pixiu_cli.accounting.explain import one_shot_explanations
    from pixiu_cli.agent.loop import SilentSink

    with (
        one_shot_explanations(),
        common.opened(model, offline, demo, conversation, continue_, new_if_none=True) as (
            renderer,
            app_,
            conversation_id,
        ),
    ):
        if conversation_id is None:
            from pixiu_cli.services.conversations import start_conversation

            conversation_id = start_conversation(app_.store, app_.settings.model)
        retry_partial = as_json if retry_partial is None else retry_partial
        if as_json or retry_partial:
            # A retried reply must not follow half of the first one on stdout: print it whole.
            result = app_.agent.run_turn(conversation_id, text, SilentSink(), retry_partial=retry_partial)
            if not as_json and result.reply:
                renderer.markdown(result.reply)
        else:
            result = _streamed(renderer, app_, conversation_id, text)
        if as_json:
            renderer.json(_json_result(result, app_.settings), indent=None)
        elif result.error:
            renderer.error(result.error)
        if result.status != "complete":
            raise typer.Exit(1)


def _streamed(renderer, app_, conversation_id: int, text: str):
    """The reply streamed to stdout. A reader that goes away (`| head -1`) cuts the output
    only: the turn completes and is stored, then the exit is the pipe's."""
    from pixiu_cli.agent.calls import ReaderSafeSink

    with renderer.reply() as stream:
        shown = ReaderSafeSink(stream)
        result = app_.agent.run_turn(conversation_id, text, shown)
    if shown.gone:
        raise BrokenPipeError
    return result


def _json_result(result, settings) -> dict:
    u = result.usage
    return {
        "conversation_id": result.conversation_id,
        "turn_id": result.turn_id,
        "turn": result.seq,
        "reply": result.reply,
        "status": result.status,
        "error": result.error,
        "notices": list(result.notices),
        "model": settings.model,
        "offline": settings.offline,
        "attempts": result.attempts,
        "usage": {
            "prompt_tokens": u.prompt_tokens,
            "completion_tokens": u.completion_tokens,
            "cache_hit_tokens": u.cache_hit_tokens,
            "cache_miss_tokens": u.cache_miss_tokens,
        },
    }


def register(app: typer.Typer) -> None:
    app.command()(chat)
    app.command()(ask)
