"""The REPL's own commands, still declared (the declared framework runs them) until they too
are plain click commands: /help, /exit, /new, /resume, /model, /save, /copy, /undo and
/retry. Apart from conversation/commands.py (sessions, context, cache: plain click commands)
so that the declared catalog does not import those."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from pixiu_cli.commands.declaration import REPL, Command, Nothing, lazy
from pixiu_cli.commands.declaration import argument as declared_argument
from pixiu_cli.commands.values import CommandError, Int, Text
from pixiu_cli.kernel.errors import os_reason

REPL_ONLY = frozenset({REPL})
VIEWS = "pixiu_cli.conversation.views"
RETRY_REFUSED = {
    "no_turn": "当前对话还没有可以重试的一轮",
    "complete": "第 {seq} 轮已完整回答，无需重试",
    "busy": "第 {seq} 轮正在由另一个 pixiu 进程回答，请稍后再试",
}


@dataclass(frozen=True)
class ResumeRequest:
    conversation_id: int


@dataclass(frozen=True)
class ResumedIn:
    resumed: object
    model: str


def _resume(ctx, r: ResumeRequest) -> ResumedIn:
    from pixiu_cli.conversation.ask import resume, resumed_model

    state = ctx.state
    resumed = resume(state.app.store, r.conversation_id)
    if resumed is None:
        raise CommandError(f"没有 ID 为 {r.conversation_id} 的对话，见 /sessions")
    state.conversation_id = resumed.conversation.id
    state.app.use_model(resumed_model(resumed.conversation, state.app.default_model))
    return ResumedIn(resumed, state.app.settings.model)


def _new(ctx, _: Nothing) -> str:
    ctx.state.conversation_id = None
    return "已开始新对话。"


def _help(ctx, _: Nothing) -> list[tuple[str, str]]:
    return ctx.commands()


def _exit(ctx, _: Nothing) -> None:
    ctx.state.leave()


@dataclass(frozen=True)
class ModelRequest:
    name: str | None


@dataclass(frozen=True)
class ModelShown:
    name: str
    priced: bool
    current: bool = False
    unchanged: bool = False
    offline: bool = False


def _model(ctx, r: ModelRequest) -> ModelShown:
    state = ctx.state
    app = state.app
    prices = app.prices
    if r.name is None:
        return ModelShown(app.settings.model, prices.knows(app.settings.model), current=True)
    name = r.name.strip()
    if not name or not name.isprintable() or len(name) > 100:
        raise CommandError("用法：/model 模型名（如 deepseek-flash、deepseek-v4-pro）")
    if name == app.settings.model:
        return ModelShown(name, prices.knows(name), unchanged=True)
    app.use_model(name)
    if state.conversation_id is not None:
        app.store.set_model(state.conversation_id, name)
    return ModelShown(name, prices.knows(name), offline=app.settings.offline)


@dataclass(frozen=True)
class SaveRequest:
    file: str | None


@dataclass(frozen=True)
class Saved:
    conversation_id: int
    path: Path


def _save(ctx, r: SaveRequest) -> Saved:
    from pixiu_cli.conversation.ask import conversation_to_save
    from pixiu_cli.conversation.views import conversation_markdown

    state = ctx.state
    if state.conversation_id is None:
        raise CommandError("当前还没有对话可以保存")
    if "\x00" in (r.file or ""):  # no file system takes it; Path and open() raise ValueError on it
        raise CommandError("文件名不能包含空字符（\\x00）")
    target = Path(os.path.expanduser(r.file or f"pixiu-conversation-{state.conversation_id}.md"))
    if target.exists():
        raise CommandError(f"文件已存在：{target}（换一个文件名，不会覆盖）")
    text = conversation_markdown(*conversation_to_save(state.app.store, state.conversation_id))
    try:
        with open(target, "x", encoding="utf-8") as out:
            out.write(text)
    except OSError as exc:
        raise CommandError(f"无法写入 {target}：{os_reason(exc)}") from None
    return Saved(state.conversation_id, target)


@dataclass(frozen=True)
class Copied:
    turn: object
    tool: str


def _copy(ctx, _: Nothing) -> Copied:
    state = ctx.state
    turns = state.app.store.turns(state.conversation_id) if state.conversation_id is not None else []
    replies = [t for t in turns if t.reply_text]
    if not replies:
        raise CommandError("还没有可以复制的回复")
    return Copied(replies[-1], state.copy_text(replies[-1].reply_text))


def _undo(ctx, _: Nothing):
    from pixiu_cli.conversation.ask import undo_last_turn

    return undo_last_turn(ctx.state.app.store, ctx.state.conversation_id)


def _repl(path: str, summary: str, call, view: str, params=(), request=Nothing) -> Command:
    return Command((path,), summary, params, request, call, lazy(f"{VIEWS}:{view}"), surfaces=REPL_ONLY)


def _retry(ctx, _: Nothing) -> None:
    from pixiu_cli.conversation.ask import RetryRequest, retry
    from pixiu_cli.conversation.views import retried_then_reply

    state = ctx.state
    request = RetryRequest(state.conversation_id)
    reply = lambda turn: retried_then_reply(ctx.renderer, turn)  # noqa: E731
    done = retry(request, state.app, reply, home=state.app.settings.home, now=ctx.now())
    if done.refused is not None:
        raise CommandError(RETRY_REFUSED[done.refused].format(seq=done.retried.seq if done.retried else ""))
    ctx.after_turn(done.asked)


DECLARED = (
    _repl("help", "列出所有命令", _help, "show_help"),
    _repl("exit", "退出 pixiu", _exit, "show_nothing"),
    _repl("new", "开始新对话", _new, "show_line"),
    _repl(
        "resume",
        "继续之前的对话",
        _resume,
        "show_resumed",
        (
            declared_argument(
                "conversation_id", Int(1, metavar="ID", complete="conversation"), "对话 ID（见 /sessions）"
            ),
        ),
        ResumeRequest,
    ),
    _repl(
        "model",
        "查看或切换本对话使用的模型",
        _model,
        "show_model",
        (declared_argument("name", Text("模型名", complete="model"), "模型名", optional=True),),
        ModelRequest,
    ),
    _repl(
        "save",
        "把当前对话保存为 Markdown 文件（每轮带状态）",
        _save,
        "show_saved",
        (declared_argument("file", Text("文件"), "文件", optional=True, many=True, as_typed=True),),
        SaveRequest,
    ),
    _repl("copy", "把上一条回复复制到剪贴板", _copy, "show_copied"),
    _repl("undo", "撤回上一轮：模型不再看到它（记录保留）", _undo, "show_undone"),
    Command(
        ("retry",),
        "重新生成上一轮中断或出错的回答（原来的部分回答保留在记录中）",
        (),
        Nothing,
        _retry,
        lazy("pixiu_cli.conversation.views:show_nothing"),
        surfaces=REPL_ONLY,
    ),
)
