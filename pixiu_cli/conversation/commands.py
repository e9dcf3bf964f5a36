"""The conversation commands: sessions (list, search, rename, delete, restore), and the
REPL's /resume, /new, /model, /save, /copy, /undo, /help and /exit."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from pixiu_cli.commands.declaration import CLI, REPL, Command, Nothing, argument, lazy, option
from pixiu_cli.commands.values import CommandError, Int, Text, whole_number

CLI_ONLY, REPL_ONLY = frozenset({CLI}), frozenset({REPL})
VIEWS = "pixiu_cli.conversation.views"


def conversation_store(ctx):
    """The REPL's conversation store, or one over the command's database."""
    if ctx.state is not None:
        return ctx.state.app.store
    from pixiu_cli.conversation.store import ConversationStore

    return ConversationStore(ctx.db, clock=ctx.clock)


@dataclass(frozen=True)
class SessionsRequest:
    text: str | None
    limit: int
    rename: int | None
    delete: int | None
    restore: int | None
    words: str | None  # /sessions N | /sessions 文字


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


def _sessions(ctx, r: SessionsRequest) -> Listed:
    from pixiu_cli.conversation import ask as service

    store = conversation_store(ctx)
    changes = {"rename": r.rename, "delete": r.delete, "restore": r.restore}
    chosen = [(action, i) for action, i in changes.items() if i is not None]
    if len(chosen) > 1:
        raise CommandError("--rename、--delete、--restore 只能选一个")
    if chosen:
        action, conversation_id = chosen[0]
        if action == "rename":
            done = service.rename_conversation(store, conversation_id, r.text or "")
        elif action == "delete":
            done = service.delete_conversation(store, conversation_id, ctx.stamp())
        else:
            done = service.restore_conversation(store, conversation_id)
        return Listed([], r.text, False, action=action, done=done)
    if ctx.state is None:
        return Listed(service.recent_conversations(store, r.limit, r.text), r.text, False)
    limit, text = _limit_or_text(r.words)
    found = service.recent_conversations(store, limit, text)
    return Listed(found, text, True, current=ctx.state.conversation_id)


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
    from pixiu_cli.kernel.errors import os_reason

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


DECLARED = (
    _repl("help", "列出所有命令", _help, "show_help"),
    _repl("exit", "退出 pixiu", _exit, "show_nothing"),
    _repl("new", "开始新对话", _new, "show_line"),
    Command(
        ("sessions",),
        "列出、搜索、改名、删除或恢复对话。",
        (
            argument(
                "text",
                Text("TEXT"),
                "只列出标题或内容含有这段文字的对话；配合 --rename 时是新标题",
                optional=True,
                surfaces=CLI_ONLY,
            ),
            option("--limit", "limit", Int(1), "最多列出几个", 20, surfaces=CLI_ONLY),
            option("--rename", "rename", Int(), "把对话 ID 改名为 TEXT", surfaces=CLI_ONLY),
            option("--delete", "delete", Int(), "删除对话 ID（--restore 可恢复）", surfaces=CLI_ONLY),
            option("--restore", "restore", Int(), "恢复删除的对话 ID", surfaces=CLI_ONLY),
            argument(
                "words",
                Text("数量|文字"),
                "最多列出几个，或要找的文字",
                optional=True,
                many=True,
                as_typed=True,
                surfaces=REPL_ONLY,
            ),
        ),
        SessionsRequest,
        _sessions,
        lazy(f"{VIEWS}:show_conversations"),
        record=lazy(f"{VIEWS}:conversations_record"),
        demo=True,
    ),
    _repl(
        "resume",
        "继续之前的对话",
        _resume,
        "show_resumed",
        (argument("conversation_id", Int(1, metavar="ID", complete="conversation"), "对话 ID（见 /sessions）"),),
        ResumeRequest,
    ),
    _repl(
        "model",
        "查看或切换本对话使用的模型",
        _model,
        "show_model",
        (argument("name", Text("模型名", complete="model"), "模型名", optional=True),),
        ModelRequest,
    ),
    _repl(
        "save",
        "把当前对话保存为 Markdown 文件（每轮带状态）",
        _save,
        "show_saved",
        (argument("file", Text("文件"), "文件", optional=True, many=True, as_typed=True),),
        SaveRequest,
    ),
    _repl("copy", "把上一条回复复制到剪贴板", _copy, "show_copied"),
    _repl("undo", "撤回上一轮：模型不再看到它（记录保留）", _undo, "show_undone"),
)
