"""The read–eval–print loop: slash commands go to the registry, everything else is a turn."""

from __future__ import annotations

import re

from pixiu_cli.kernel.errors import UserError
from pixiu_cli.memory.alerts import take_unseen_alerts
from pixiu_cli.memory.views import show_new_alerts
from pixiu_cli.repl import sync_commands
from pixiu_cli.repl.completion import PixiuCompleter, sources_for
from pixiu_cli.repl.prompt import PROMPT, make_prompt_session, one_key_question
from pixiu_cli.repl.registry import CommandError, is_command, parse_command, registry
from pixiu_cli.repl.state import ExitRepl, ReplState
from pixiu_cli.repl.turn import recover, run_chat_turn
from pixiu_cli.repl.warmup import Warmup

# prompt_toolkit decodes the terminal with errors="surrogateescape": bytes that are not
# UTF-8 arrive as lone surrogates, which SQLite (and any UTF-8 output) cannot take.
_UNDECODABLE = re.compile("[\ud800-\udfff]")
NOT_UTF8 = "输入含有不是 UTF-8 的字节，未发送；请把终端的字符编码设为 UTF-8 后重新输入。"


def run_command(state: ReplState, line: str) -> None:
    try:
        parsed = parse_command(line)
        command = registry.get(parsed.name)
        if command is None:
            raise CommandError(f"未知命令 /{parsed.name}，输入 /help 查看可用命令")
        command.handler(state, parsed)
    except UserError as exc:
        recover(state, exc)  # /retry runs a turn: one it cut off is closed with this line


def _show_new_alerts(state: ReplState) -> None:
    """Alerts fired by imports or syncs since the REPL last showed them."""

    show_new_alerts(state.renderer, take_unseen_alerts(state.app.store.db, state.stamp()))


def run_repl(state: ReplState, **prompt_io) -> None:
    session = make_prompt_session(state.app.settings.history_path, PixiuCompleter(sources_for(state)), **prompt_io)
    state.edit_text = lambda text: session.prompt("编辑 › ", default=text)
    state.answer_key = one_key_question(**prompt_io)
    _show_new_alerts(state)
    _offer_sync(state)
    armed_exit = False
    warmup = Warmup(state.app.agent.client)
    while True:
        try:
            retype, state.retype = state.retype, ""
            line = session.prompt(
                PROMPT, default=retype, pre_run=lambda: _pre_run(session, state, warmup), **_toolbar(session, state)
            )
        except KeyboardInterrupt:
            had_text = bool(session.default_buffer.text.strip())
            if armed_exit and not had_text:
                break
            armed_exit = not had_text
            if armed_exit:
                state.renderer.dim("再按一次 Ctrl-C 退出（或按 Ctrl-D）。")
            continue
        except EOFError:
            break
        armed_exit = False
        warmup.turn_started()
        if session.history.failed_once():
            state.renderer.warn(
                f"输入历史无法写入 {state.app.settings.history_path}（磁盘已满或只读？）：本次会话照常进行"
            )
        if not line.strip():
            continue
        if _UNDECODABLE.search(line):
            state.renderer.error(NOT_UTF8)
            continue
        try:
            if is_command(line):
                run_command(state, line)
            else:
                run_chat_turn(state, line)
        except ExitRepl:
            break
        except Exception as exc:  # a bug must not end the session: one line, back to the prompt
            recover(state, exc)
        _offer_sync(state)
    state.renderer.dim("再见。")


def _offer_sync(state: ReplState) -> None:
    try:
        sync_commands.offer_sync(state)
    except Exception as exc:  # a broken calendar or database must not end the session either
        recover(state, exc)


def _report_when_done(session, state: ReplState) -> None:
    """From the sync's thread: print its result above the prompt now (run_in_terminal hides
    the prompt, prints, and draws it again with what was typed). Between prompts nothing is
    done here: the next offer_sync reports it."""
    from prompt_toolkit.application import run_in_terminal

    loop = session.app.loop
    if session.app.is_running and loop is not None and not loop.is_closed():
        loop.call_soon_threadsafe(lambda: run_in_terminal(lambda: sync_commands.report_background(state)))


def _pre_run(session, state: ReplState, warmup: Warmup) -> None:
    """Before the prompt is drawn: a background sync that ended while no prompt was running
    (its thread found nobody to print to) is reported as soon as the prompt is up."""
    warmup.after_draw()
    running = state.background_sync
    if running is not None and not running.running:
        import asyncio

        from prompt_toolkit.application import run_in_terminal

        asyncio.get_running_loop().call_soon(lambda: run_in_terminal(lambda: sync_commands.report_background(state)))


def _toolbar(session, state: ReplState) -> dict:
    """The background sync's progress on the prompt line's right, redrawn twice a second, only
    while there is one (prompt() keeps an rprompt once given, so it is cleared by hand). Not a
    bottom toolbar: prompt_toolkit draws that only on terminals that report the cursor position."""
    if state.background_sync is None:
        session.rprompt = None
        session.refresh_interval = 0
        return {}
    state.background_sync.on_finish = lambda: _report_when_done(session, state)
    return {"rprompt": lambda: sync_commands.toolbar(state), "refresh_interval": 0.5}
