"""The commands that show what the model was sent: context (a stored call, or the request a
question would send now) and cache (hits, cost and why each call missed)."""

from __future__ import annotations

from dataclasses import dataclass

from pixiu_cli.commands.declaration import CLI, REPL, Command, argument, lazy, option, switch
from pixiu_cli.commands.values import CommandError, Int, Question

CLI_ONLY, REPL_ONLY = frozenset({CLI}), frozenset({REPL})
VIEWS = "pixiu_cli.conversation.views"


def _app(ctx):
    """The REPL's app, or on the command line one that assembles context without a model."""
    if ctx.state is not None:
        return ctx.state.app
    from pixiu_cli.app import open_preview

    app_ = open_preview(ctx.settings(), demo=ctx.demo)
    ctx.on_close(app_.close)
    return app_


def _conversation(ctx, store, asked: int | None) -> int | None:
    """The conversation asked for (it must exist), else the REPL's, else the latest one."""
    if asked is not None and store.get_conversation(asked) is None:
        raise CommandError(f"没有 ID 为 {asked} 的对话")
    if asked is not None:
        return asked
    if ctx.state is not None:
        return ctx.state.conversation_id
    latest = store.latest_conversation()
    return latest.id if latest else None


@dataclass(frozen=True)
class ContextRequest:
    text: str | None
    turn: int | None
    json_out: bool
    raw: bool
    pretty: bool
    diff: bool
    explain: bool
    conversation: int | None

    def mode(self) -> str:
        flags = (("json", self.json_out), ("raw", self.raw), ("pretty", self.pretty), ("diff", self.diff))
        return next((mode for mode, on in flags if on), "explain" if self.explain else "table")


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


def _context(ctx, r: ContextRequest) -> StoredCall | Preview:
    if sum([r.json_out, r.raw, r.pretty, r.diff, r.explain]) > 1:
        raise CommandError("--json、--raw、--pretty、--diff、--explain 只能选一个")
    app_ = _app(ctx)
    conversation_id = _conversation(ctx, app_.store, r.conversation)
    if r.text is None:
        return StoredCall(app_.store, conversation_id, r.turn, r.mode())
    if r.diff or r.turn:
        raise CommandError("--diff / --turn 用于查看已发生的调用，不能与 TEXT 一起用")
    request, info = app_.requests.preview(r.conversation, r.text)
    return Preview(request, info, r.mode())


@dataclass(frozen=True)
class CacheRequest:
    conversation: int | None


def _cache(ctx, r: CacheRequest):
    from pixiu_cli.account.report import build_report
    from pixiu_cli.conversation.commands import conversation_store

    store = conversation_store(ctx)
    return build_report(store, _conversation(ctx, store, r.conversation), ctx.tables().prices)


CONVERSATION_HELP = "对话 ID（默认最近的对话）"

DECLARED = (
    Command(
        ("context",),
        "显示模型看到（或将要看到）的完整上下文，不调用模型；在对话中：上一次（或第 N 轮）真正看到的内容。",
        (
            argument(
                "text", Question(), "假设要问的问题；省略时显示最近一次真实调用", optional=True, surfaces=CLI_ONLY
            ),
            argument("turn", Int(1, metavar="N"), "查看第 N 轮的调用", optional=True, surfaces=REPL_ONLY),
            switch("--json", "json_out", "输出消息列表 JSON"),
            switch("--raw", "raw", "原样输出发送的请求字节"),
            switch("--pretty", "pretty", "输出缩进后的请求 JSON"),
            switch("--diff", "diff", "与上一次调用的请求比较"),
            switch("--explain", "explain", "输出上下文块的 JSON 摘要，含选择依据（selection）", surfaces=CLI_ONLY),
            option("--conversation", "conversation", Int(), CONVERSATION_HELP, surfaces=CLI_ONLY),
            option("--turn", "turn", Int(1), "查看第 N 轮的调用", surfaces=CLI_ONLY),
        ),
        ContextRequest,
        _context,
        lazy(f"{VIEWS}:show_context"),
        demo=True,
    ),
    Command(
        ("cache",),
        "缓存命中、费用与节省（本对话 / 今天 / 全部），以及每次调用未命中的原因。",
        (option("--conversation", "conversation", Int(), CONVERSATION_HELP, surfaces=CLI_ONLY),),
        CacheRequest,
        _cache,
        lazy(f"{VIEWS}:show_cache_report"),
        record=lambda report: report.as_json(),
        demo=True,
    ),
)
