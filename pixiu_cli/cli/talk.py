"""`pixiu chat` (the REPL, the default command) and `pixiu ask` (one question, then exit):
plain click commands of the root group (cli/root.py), command-line only."""

from __future__ import annotations

from contextlib import contextmanager, nullcontext

import click

from pixiu_cli.account.explain import one_shot_explanations
from pixiu_cli.commands import common
from pixiu_cli.commands.params import Argument, Int, Text
from pixiu_cli.conversation import ask as asking
from pixiu_cli.conversation.agent.calls import ReaderSafeSink, SilentSink
from pixiu_cli.conversation.presenters import error_line
from pixiu_cli.conversation.views import ask_kept_line, show_recap

# Imported where used: the REPL (prompt_toolkit) only for chat; the reply sinks (the model
# client), the cache explanations (the tokenizer) and the views only when ask needs them,
# so a piped `ask` and the REPL's first prompt load no more than they did.

_MODEL_HELP = "模型名（覆盖 PIXIU_MODEL）"
_OFFLINE_HELP = "即使设置了 API key 也使用离线应答器"


def run_chat(demo: bool, resume: int | None, continue_: bool, model: str | None, offline: bool) -> None:
    """`pixiu chat`: the REPL."""
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

    resumed = asking.resume(app_.store, conversation_id)
    if resumed is not None:
        show_recap(renderer, resumed, app_.settings.model)


def run_ask(
    text: str | None,
    as_json: bool,
    continue_: bool,
    conversation: int | None,
    model: str | None,
    offline: bool,
    demo: bool,
    retry_partial: bool | None,
) -> None:
    """`pixiu ask`: one question, its answer, then exit (status 1 or 130 when the turn did not complete)."""
    if conversation is not None and continue_:
        raise common.CliError("--conversation 和 --continue 只能选一个")
    if text is None and common.stdin_is_terminal():
        raise common.CliError("缺少问题：pixiu ask 问题（或从管道输入：echo 问题 | pixiu ask）")
    if text is None or text == "-":
        text = common.read_stdin_text()
    common.require_utf8(text)
    if not text.strip():
        raise common.CliError("问题为空")
    loaded = common.settings(model, offline)
    shown = common.renderer()
    retry_partial = as_json if retry_partial is None else retry_partial
    # A retried reply must not follow half of the first one on stdout: print it whole.
    whole = as_json or retry_partial
    sink = _silent() if whole else _ReaderSafeReply(shown)
    opened = _opened(shown, model, offline, demo, conversation, continue_)
    request = asking.AskRequest(text, retry_partial=retry_partial, must_keep=True)
    result = asking.ask(request, opened, sink, home=loaded.home, now=common.now(loaded))
    _refuse_unstored(result)
    if not whole and sink.gone:
        raise BrokenPipeError  # the turn completed and is stored; the exit is the pipe's
    if result.turn is not None:
        _show(shown, result.turn, as_json, whole, result.model, loaded.offline)
    if result.turn is None or result.turn.status != "complete":
        raise SystemExit(130 if result.interrupted else 1)


@contextmanager
def _opened(shown, model, offline, demo, conversation, continue_):
    """The app and the conversation `ask` continues (None: a new one), explanations of a
    cache miss waited for before the process ends."""

    with (
        one_shot_explanations(),
        common.opened(model, offline, demo, conversation, continue_, new_if_none=True, shown=shown) as (_, app_, cid),
    ):
        yield app_, cid


def _silent():

    return nullcontext(SilentSink())


class _ReaderSafeReply:
    """The reply streamed to stdout. A reader that goes away (`| head -1`) cuts the output
    only: the turn completes and is stored, then the exit is the pipe's."""

    def __init__(self, shown):
        self.shown, self.gone, self._reply = shown, False, None

    def __enter__(self):

        self._reply = self.shown.reply()
        self._sink = ReaderSafeSink(self._reply.__enter__())
        return self._sink

    def __exit__(self, *exc):
        self.gone = self._sink.gone
        return self._reply.__exit__(*exc)


def _refuse_unstored(result) -> None:
    """A turn that could not be stored: its cause and where the question was kept, one line."""

    if result.unstored is None:
        return
    if result.kept is None:
        raise result.unstored  # one line from main; nowhere held the question
    raise common.CliError(ask_kept_line(error_line(result.unstored), result.kept)) from None


def _show(shown, turn, as_json: bool, whole: bool, model: str | None, offline: bool) -> None:
    if as_json:
        shown.json(_json_result(turn, model, offline), indent=None)
    elif whole and turn.reply:
        shown.markdown(turn.reply)
    if not as_json and turn.error:
        shown.error(turn.error)


def _json_result(result, model: str | None, offline: bool) -> dict:
    u = result.usage
    return {
        "conversation_id": result.conversation_id,
        "turn_id": result.turn_id,
        "turn": result.seq,
        "reply": result.reply,
        "status": result.status,
        "error": result.error,
        "notices": list(result.notices),
        "model": model,
        "offline": offline,
        "attempts": result.attempts,
        "usage": {
            "prompt_tokens": u.prompt_tokens,
            "completion_tokens": u.completion_tokens,
            "cache_hit_tokens": u.cache_hit_tokens,
            "cache_miss_tokens": u.cache_miss_tokens,
        },
    }


@click.command("chat", help="交互式对话（默认命令）。")
@click.option("--demo", is_flag=True, help="使用演示数据库（真实 A 股名称的示例持仓）")
@click.option("--resume", type=Int(), metavar="<int>", help="继续指定 ID 的对话")
@click.option("--continue", "-c", "continue_", is_flag=True, help="继续最近的对话")
@click.option("--model", type=Text("模型名"), metavar="<str>", help=_MODEL_HELP)
@click.option("--offline", is_flag=True, help=_OFFLINE_HELP)
def chat(demo: bool, resume: int | None, continue_: bool, model: str | None, offline: bool) -> None:
    run_chat(demo, resume, continue_, model, offline)


@click.command("ask", help="问一个问题并退出（不进入交互界面）。")
@click.argument(
    "text", cls=Argument, required=False, metavar="[text]", help="问题；为 - 或省略（从管道输入）时从标准输入读取"
)
@click.option("--json", "as_json", is_flag=True, help="输出一个 JSON 对象")
@click.option("--continue", "-c", "continue_", is_flag=True, help="接着最近的对话问")
@click.option("--conversation", type=Int(), metavar="<int>", help="接着指定 ID 的对话问")
@click.option("--model", type=Text("模型名"), metavar="<str>", help=_MODEL_HELP)
@click.option("--offline", is_flag=True, help=_OFFLINE_HELP)
@click.option("--demo", is_flag=True, help="使用演示数据库")
@click.option(
    "--retry-partial/--no-retry-partial",
    default=None,
    help="回复中途断开时自动重新生成（--json 时默认开启）；开启后回答在完成后一次输出",
)
def ask(text, as_json, continue_, conversation, model, offline, demo, retry_partial) -> None:
    run_ask(text, as_json, continue_, conversation, model, offline, demo, retry_partial)


COMMANDS = {"chat": chat, "ask": ask}
