"""The conversation's commands, the same functions for `pixiu X` and `/X`: sessions (list,
search, rename, delete, restore), context (a stored call, or the request a question would
send now), cache (hits, cost and why each call missed) and the command line's offline-server;
and the REPL's alone, on its session: /new, /resume, /model, /save, /undo and /retry. Each
calls the conversation's use cases and shows through conversation/views.py."""

from __future__ import annotations

import errno
import os
import re
from dataclasses import dataclass
from pathlib import Path

import click

from pixiu_cli import app
from pixiu_cli.account.report import build_report
from pixiu_cli.commands import common
from pixiu_cli.commands import params as kinds
from pixiu_cli.commands.params import CLI, REPL, SurfaceCommand, argument, demo_option, json_option, option
from pixiu_cli.commands.values import CommandError, whole_number
from pixiu_cli.conversation import ask as service
from pixiu_cli.conversation import views, views_tools
from pixiu_cli.kernel.errors import os_reason

CONVERSATION_HELP = "对话 ID（默认最近的对话）"


def _conversations():
    """The REPL's conversation store, or one over the command's workspace."""
    state = common.repl_state()
    return state.app.store if state is not None else common.on_workspace().conversations


def _conversation(store, asked: int | None) -> int | None:
    """The conversation asked for (it must exist), else the REPL's, else the latest one."""
    if asked is not None and store.get_conversation(asked) is None:
        raise CommandError(f"没有 ID 为 {asked} 的对话")
    if asked is not None:
        return asked
    state = common.repl_state()
    if state is not None:
        return state.conversation_id
    latest = store.latest_conversation()
    return latest.id if latest else None


@dataclass(frozen=True)
class Listed:
    found: list
    text: str | None
    in_repl: bool
    current: int | None = None
    action: str | None = None
    done: object = None


def _limit_or_text(words: str | None) -> tuple[int, str | None]:
    """/sessions 5 lists five; any other words are the text to look for."""
    if words is None:
        return 20, None
    limit = whole_number(words)
    if limit is None:
        return 20, words
    if not limit:
        raise CommandError(f"数量应为正整数：{words}")
    return limit, None


@click.command("sessions", cls=SurfaceCommand, help="列出、搜索、改名、删除或恢复对话。")
@argument(
    "text",
    kinds.Text("TEXT"),
    "只列出标题或内容含有这段文字的对话；配合 --rename 时是新标题",
    required=False,
    surfaces=(CLI,),
)
@option("--limit", type=kinds.Int(1), default=20, metavar="N", help="最多列出几个", show_default=True, surfaces=(CLI,))
@option("--rename", type=kinds.Int(), metavar="N", help="把对话 ID 改名为 TEXT", surfaces=(CLI,))
@option("--delete", type=kinds.Int(), metavar="N", help="删除对话 ID（--restore 可恢复）", surfaces=(CLI,))
@option("--restore", type=kinds.Int(), metavar="N", help="恢复删除的对话 ID", surfaces=(CLI,))
@argument(
    "words",
    kinds.Text("数量|文字"),
    "最多列出几个，或要找的文字",
    required=False,
    nargs=-1,
    metavar="WORDS",
    surfaces=(REPL,),
)
@json_option
@demo_option
def sessions(text, limit, rename, delete, restore, words, as_json: bool, demo: bool) -> None:
    listed = _sessions(text, limit, rename, delete, restore, " ".join(words) if words else None)
    record = views.conversations_record(listed) if as_json else None
    if record is not None:
        common.shown().json(record)
    else:
        common.finish(views.show_conversations(common.shown(), listed, common.spell))


def _sessions(text, limit, rename, delete, restore, words) -> Listed:
    store = _conversations()
    changes = {"rename": rename, "delete": delete, "restore": restore}
    chosen = [(action, i) for action, i in changes.items() if i is not None]
    if len(chosen) > 1:
        raise CommandError("--rename、--delete、--restore 只能选一个")
    if chosen:
        action, conversation_id = chosen[0]
        if action == "rename":
            done = service.rename_conversation(store, conversation_id, text or "")
        elif action == "delete":
            done = service.delete_conversation(
                store, conversation_id, common.on_workspace().now().isoformat(timespec="seconds")
            )
        else:
            done = service.restore_conversation(store, conversation_id)
        return Listed([], text, False, action=action, done=done)
    state = common.repl_state()
    if state is None:
        return Listed(service.recent_conversations(store, limit, text), text, False)
    limit, text = _limit_or_text(words)
    return Listed(service.recent_conversations(store, limit, text), text, True, current=state.conversation_id)


@dataclass(frozen=True)
class StoredCall:
    """A call already made: the latest of the conversation, or the one of turn N."""

    store: object
    conversation_id: int | None
    turn: int | None
    mode: str


@dataclass(frozen=True)
class Preview:
    """The request a question would send now, built without calling the model."""

    request: dict
    info: dict | None
    mode: str


def _app(demo: bool):
    """The REPL's app, or on the command line one that assembles context without a model."""
    state = common.repl_state()
    if state is not None:
        return state.app
    preview = app.open_preview(common.settings(), demo=demo)
    click.get_current_context().find_root().call_on_close(preview.close)
    return preview


@click.command(
    "context",
    cls=SurfaceCommand,
    help="显示模型看到（或将要看到）的完整上下文，不调用模型；在对话中：上一次（或第 N 轮）真正看到的内容。",
)
@argument("text", kinds.Question(), "假设要问的问题；省略时显示最近一次真实调用", required=False, surfaces=(CLI,))
@argument("turn", kinds.Int(1), "查看第 N 轮的调用", required=False, metavar="N", surfaces=(REPL,))
@option("--json", "json_out", is_flag=True, help="输出消息列表 JSON")
@option("--raw", is_flag=True, help="原样输出发送的请求字节")
@option("--pretty", is_flag=True, help="输出缩进后的请求 JSON")
@option("--diff", is_flag=True, help="与上一次调用的请求比较")
@option("--explain", is_flag=True, help="输出上下文块的 JSON 摘要，含选择依据（selection）", surfaces=(CLI,))
@option("--conversation", type=kinds.Int(), metavar="N", help=CONVERSATION_HELP, surfaces=(CLI,))
@option("--turn", "turn_option", type=kinds.Int(1), metavar="N", help="查看第 N 轮的调用", surfaces=(CLI,))
@demo_option
def context(text, turn, json_out, raw, pretty, diff, explain, conversation, turn_option, demo) -> None:
    turn = turn if turn is not None else turn_option
    if sum([json_out, raw, pretty, diff, explain]) > 1:
        raise CommandError("--json、--raw、--pretty、--diff、--explain 只能选一个")
    flags = (("json", json_out), ("raw", raw), ("pretty", pretty), ("diff", diff))
    mode = next((mode for mode, on in flags if on), "explain" if explain else "table")
    app_ = _app(demo)
    conversation_id = _conversation(app_.store, conversation)
    if text is None:
        shown = StoredCall(app_.store, conversation_id, turn, mode)
    else:
        if diff or turn:
            raise CommandError("--diff / --turn 用于查看已发生的调用，不能与 TEXT 一起用")
        request, info = app_.requests.preview(conversation, text)
        shown = Preview(request, info, mode)
    common.finish(views.show_context(common.shown(), shown, common.spell))


@click.command(
    "cache", cls=SurfaceCommand, help="缓存命中、费用与节省（本对话 / 今天 / 全部），以及每次调用未命中的原因。"
)
@option("--conversation", type=kinds.Int(), metavar="N", help=CONVERSATION_HELP, surfaces=(CLI,))
@json_option
@demo_option
def cache(conversation, as_json: bool, demo: bool) -> None:
    store = _conversations()
    report = build_report(store, _conversation(store, conversation), common.on_workspace().prices)
    if as_json:
        common.shown().json(report.as_json())
    else:
        common.finish(views.show_cache_report(common.shown(), report, common.spell))


@click.command("offline-server", help="在前台运行离线 OpenAI 兼容服务（127.0.0.1），用于测试和无 key 体验。")
@click.option(
    "--port", type=kinds.Int(0, 65535), default=8765, metavar="N", show_default=True, help="监听端口（0 表示随机）"
)
@click.option(
    "--cache-profile",
    type=kinds.Choice(("deepseek", "openai", "none")),
    default="deepseek",
    metavar="CACHE_PROFILE",
    show_default=True,
    help="deepseek | openai | none",
)
@click.option("--control", is_flag=True, help="开启 /_pixiu 控制接口（仅用于测试，需要启动时显示的令牌）")
@click.option(
    "--request-log",
    type=kinds.Int(0),
    default=256,
    metavar="N",
    show_default=True,
    help="控制接口保留最近多少个请求（内存上限）",
)
def offline_server(port: int, cache_profile: str, control: bool, request_log: int) -> None:
    # the server's own modules (http.server, the responder): `sessions` and `cache` share this module
    from pixiu_cli.conversation.offline.server import OfflineServer

    server = OfflineServer(cache_profile=cache_profile, port=port, control=control, request_log=request_log)
    try:
        server = server.bind()
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise CommandError(f"端口 {port} 已被占用：请用 --port 换一个端口（--port 0 表示随机）") from None
        raise CommandError(f"无法在端口 {port} 上启动离线服务：{os_reason(exc)}") from None
    views_tools.show_serving(common.shown(), server, cache_profile)
    server.serve_in_foreground()  # until Ctrl-C


# The REPL's own commands (cli=False in cli/root.py's TABLE): they act on its session. They take
# no --help (/help lists them; a --help typed is an unknown option, as it always was).


def _session():
    return common.repl_state()


class ConversationId(kinds.Int):
    complete = "conversation"


@click.command("new", add_help_option=False, help="开始新对话")
def new() -> None:
    _session().conversation_id = None
    views.show_line(common.shown(), "已开始新对话。")


@dataclass(frozen=True)
class ResumedIn:
    resumed: object
    model: str


@click.command("resume", add_help_option=False, help="继续之前的对话")
@argument("conversation_id", ConversationId(1, shown="ID"), "对话 ID（见 /sessions）", metavar="ID")
def resume(conversation_id: int) -> None:
    state = _session()
    resumed = service.resume(state.app.store, conversation_id)
    if resumed is None:
        raise CommandError(f"没有 ID 为 {conversation_id} 的对话，见 /sessions")
    state.conversation_id = resumed.conversation.id
    state.app.use_model(service.resumed_model(resumed.conversation, state.app.default_model))
    views.show_resumed(common.shown(), ResumedIn(resumed, state.app.settings.model))


@dataclass(frozen=True)
class ModelShown:
    name: str
    priced: bool
    current: bool = False
    unchanged: bool = False
    offline: bool = False


@click.command("model", add_help_option=False, help="查看或切换本对话使用的模型")
@argument("name", kinds.Text("模型名", complete="model"), "模型名", required=False)
def model(name: str | None) -> None:
    views.show_model(common.shown(), _model(_session(), name))


def _model(state, name: str | None) -> ModelShown:
    app_ = state.app
    prices = app_.prices
    if name is None:
        return ModelShown(app_.settings.model, prices.knows(app_.settings.model), current=True)
    name = name.strip()
    if not name or not name.isprintable() or len(name) > 100:
        raise CommandError("用法：/model 模型名（如 deepseek-flash、deepseek-v4-pro）")
    if name == app_.settings.model:
        return ModelShown(name, prices.knows(name), unchanged=True)
    app_.use_model(name)
    if state.conversation_id is not None:
        app_.store.set_model(state.conversation_id, name)
    return ModelShown(name, prices.knows(name), offline=app_.settings.offline)


_OPTION = re.compile(r"--[a-z][a-z-]*")  # "--" alone or "--5%" is part of a file name


class TypedLine(click.Command):
    """A command whose words the REPL hands over as typed (repl/slash.py): the file name keeps
    its spaces and quotes; a word click does not know stays in it, the command refuses options."""

    reads_typed = True

    def parse_args(self, ctx, args):
        ctx.ignore_unknown_options = True
        return super().parse_args(ctx, args)


@dataclass(frozen=True)
class Saved:
    conversation_id: int
    path: Path


@click.command("save", add_help_option=False, cls=TypedLine, help="把当前对话保存为 Markdown 文件（每轮带状态）")
@argument("file", kinds.Text("文件"), "文件", required=False, nargs=-1)
def save(file: tuple[str, ...]) -> None:
    typed = common.typed_args()
    typed = " ".join(file) if typed is None else typed.strip()
    for word in typed.split():
        if _OPTION.fullmatch(word):
            raise CommandError(f"未知选项 {word}")
    views.show_saved(common.shown(), _save(_session(), typed or None))


def _save(state, file: str | None) -> Saved:
    if state.conversation_id is None:
        raise CommandError("当前还没有对话可以保存")
    if "\x00" in (file or ""):  # no file system takes it; Path and open() raise ValueError on it
        raise CommandError("文件名不能包含空字符（\\x00）")
    target = Path(os.path.expanduser(file or f"pixiu-conversation-{state.conversation_id}.md"))
    if target.exists():
        raise CommandError(f"文件已存在：{target}（换一个文件名，不会覆盖）")
    text = views.conversation_markdown(*service.conversation_to_save(state.app.store, state.conversation_id))
    try:
        with open(target, "x", encoding="utf-8") as out:
            out.write(text)
    except OSError as exc:
        raise CommandError(f"无法写入 {target}：{os_reason(exc)}") from None
    return Saved(state.conversation_id, target)


@click.command("undo", add_help_option=False, help="撤回上一轮：模型不再看到它（记录保留）")
def undo() -> None:
    state = _session()
    views.show_undone(common.shown(), service.undo_last_turn(state.app.store, state.conversation_id))


RETRY_REFUSED = {
    "no_turn": "当前对话还没有可以重试的一轮",
    "complete": "第 {seq} 轮已完整回答，无需重试",
    "busy": "第 {seq} 轮正在由另一个 pixiu 进程回答，请稍后再试",
}


@click.command("retry", add_help_option=False, help="重新生成上一轮中断或出错的回答（原来的部分回答保留在记录中）")
def retry() -> None:
    # the REPL's end of a turn (its status line): loaded with the REPL, which is running
    from pixiu_cli.repl.turn import show_asked

    state = _session()
    shown = common.shown()
    reply = lambda turn: views.retried_then_reply(shown, turn)  # noqa: E731
    done = service.retry(
        service.RetryRequest(state.conversation_id), state.app, reply, home=state.app.settings.home, now=state.clock()
    )
    if done.refused is not None:
        raise CommandError(RETRY_REFUSED[done.refused].format(seq=done.retried.seq if done.retried else ""))
    show_asked(state, done.asked)


COMMANDS = {
    "sessions": sessions,
    "context": context,
    "cache": cache,
    "offline-server": offline_server,
    "new": new,
    "resume": resume,
    "model": model,
    "save": save,
    "undo": undo,
    "retry": retry,
}
