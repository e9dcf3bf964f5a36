"""The read–eval–print loop: slash commands go to the registry, everything else is a turn.

The daily offer (/sync itself is the market area's command): after the close of a trading
day the REPL says, once per session, that the holdings', watch list's or benchmarks' bars are behind and how to fetch
them; with `[market] auto_sync = true` it fetches them in the background instead, its
progress on the right of the prompt line and its result printed above the prompt when done."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable

from prompt_toolkit.application import run_in_terminal

from pixiu_cli.conversation.presenters import error_line
from pixiu_cli.kernel.errors import UserError
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.handle import Market
from pixiu_cli.market.source_by_name import SOURCE_NAMES
from pixiu_cli.memory.alerts import take_unseen_alerts
from pixiu_cli.memory.views import show_new_alerts
from pixiu_cli.repl.prompt import PROMPT, PixiuCompleter, make_prompt_session, one_key_question, sources_for
from pixiu_cli.repl.registry import CommandError, is_command, parse_command, registry
from pixiu_cli.repl.state import ExitRepl, ReplState
from pixiu_cli.repl.turn import recover, run_chat_turn
from pixiu_cli.repl.warmup import Warmup


def _request(state: ReplState, source: str):
    from pixiu_cli.market.service import SyncRequest, sync_targets

    return SyncRequest(sync_targets(state.app.market, None), source, daily=True)


class BackgroundSync:
    """One default sync on its own thread and database connection (SQLite in WAL mode lets
    the REPL keep reading and writing meanwhile)."""

    def __init__(self, state: ReplState, source: str):
        self.source = source
        self._request = _request(state, source)
        self._path = state.app.settings.demo_db_path if state.app.demo else state.app.settings.db_path
        self._now, self._costs = state.clock(), state.app.costs
        # [push] alerts: what this sync finds is pushed once (never the demo's)
        self._push = None if state.app.demo else state.app.push
        self.total, self.done = len(self._request.symbols), 0
        self.result, self.error = None, None
        self.on_finish: Callable[[], None] = lambda: None  # called on the sync's thread
        # Set before on_finish runs: a prompt starting meanwhile sees the sync as ended even
        # though its thread is still alive, so one of the two always reports it.
        self._finished = threading.Event()
        self._thread = threading.Thread(target=self._run, name="pixiu-auto-sync", daemon=True)

    def start(self) -> None:
        self._thread.start()

    @property
    def running(self) -> bool:
        return not self._finished.is_set()

    def _advance(self, outcome) -> None:
        self.done += 1

    def _run(self) -> None:
        from pixiu_cli.market.service import sync_market

        try:
            db = open_database(self._path)
            try:
                self.result = sync_market(
                    Market(db), self._request, self._now, self._costs, on_symbol=self._advance, push=self._push
                )
            finally:
                db.close()
        except Exception as exc:  # one line at the next prompt; the REPL goes on
            self.error = error_line(exc)
        self._finished.set()
        self.on_finish()

    def progress_line(self) -> str:
        if self.running:
            return f"后台同步行情（{self.source}）：{self.done}/{self.total}"
        return f"后台同步已完成：{self.done}/{self.total}"

    def wait(self, seconds: float) -> None:
        self._thread.join(seconds)


def offer_sync(state: ReplState) -> None:
    """At the start and after each turn: report a finished background sync, then, once per
    session, say that the data is behind (or start the background sync)."""
    report_background(state)
    if state.background_sync is not None or state.app.demo:  # the demo's bars are dated on purpose
        return
    from pixiu_cli.market.service import stale_market  # after the demo's return: its prompt does without it

    stale = stale_market(state.app.market, state.clock())
    if stale is None or stale.session == state.offered_session:
        return
    state.offered_session = stale.session
    count = f"{len(stale.symbols)} 只"
    if state.app.settings.auto_sync:
        state.background_sync = BackgroundSync(state, SOURCE_NAMES[0])
        state.background_sync.start()
        state.renderer.dim(f"行情数据落后 {stale.session} 收盘（{count}），已在后台同步；进度见输入行右侧")
        return
    state.renderer.info(
        f"行情数据落后 {stale.session} 收盘（{count}，最多 {stale.behind} 个交易日）："
        "输入 /sync 同步（或 pixiu data sync）；pixiu config set market.auto_sync true 可在收盘后自动同步"
    )


def report_background(state: ReplState) -> None:
    """What a finished background sync did, once; nothing while it runs."""
    running = state.background_sync
    if running is None or running.running:
        return
    state.background_sync = None
    if running.error:
        state.renderer.error(f"后台同步失败：{running.error}")
        return
    from pixiu_cli.market.views import show_sync

    state.renderer.dim(f"后台同步完成（{running.source}，{running.total} 只）：")
    show_sync(state.renderer, running.source, running.result)


def toolbar(state: ReplState):
    """The prompt's right-hand text while a background sync has something to say, else None."""
    running = state.background_sync
    return running.progress_line() if running is not None else None


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

    show_new_alerts(state.renderer, take_unseen_alerts(state.app.memory, state.stamp()))


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
        offer_sync(state)
    except Exception as exc:  # a broken calendar or database must not end the session either
        recover(state, exc)


def _report_when_done(session, state: ReplState) -> None:
    """From the sync's thread: print its result above the prompt now (run_in_terminal hides
    the prompt, prints, and draws it again with what was typed). Between prompts nothing is
    done here: the next offer_sync reports it."""

    loop = session.app.loop
    if session.app.is_running and loop is not None and not loop.is_closed():
        loop.call_soon_threadsafe(lambda: run_in_terminal(lambda: report_background(state)))


def _pre_run(session, state: ReplState, warmup: Warmup) -> None:
    """Before the prompt is drawn: a background sync that ended while no prompt was running
    (its thread found nobody to print to) is reported as soon as the prompt is up."""
    warmup.after_draw()
    running = state.background_sync
    if running is not None and not running.running:
        asyncio.get_running_loop().call_soon(lambda: run_in_terminal(lambda: report_background(state)))


def _toolbar(session, state: ReplState) -> dict:
    """The background sync's progress on the prompt line's right, redrawn twice a second, only
    while there is one (prompt() keeps an rprompt once given, so it is cleared by hand). Not a
    bottom toolbar: prompt_toolkit draws that only on terminals that report the cursor position."""
    if state.background_sync is None:
        session.rprompt = None
        session.refresh_interval = 0
        return {}
    state.background_sync.on_finish = lambda: _report_when_done(session, state)
    return {"rprompt": lambda: toolbar(state), "refresh_interval": 0.5}
