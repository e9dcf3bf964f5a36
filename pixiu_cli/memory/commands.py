"""The memory's commands: `memory list|accept|replace|pin|unpin|edit`, `remember`, `forget`."""

from __future__ import annotations

from dataclasses import dataclass

from pixiu_cli.commands.declaration import REPL, Command, Group, argument, lazy, option
from pixiu_cli.commands.values import Choice, StockCode, Text
from pixiu_cli.kernel.vocabulary import NOTE_KINDS

REPL_ONLY = frozenset({REPL})
MEMORY_ID = Text("ID", complete="memory")


@dataclass(frozen=True)
class ListRequest:
    query: str | None
    kind: str | None
    symbol: str | None


def _list(ctx, r: ListRequest):
    from pixiu_cli.memory.search import search_memories

    return search_memories(ctx.db, r.query, kind=r.kind, symbol=r.symbol, limit=200)


@dataclass(frozen=True)
class RefRequest:
    ref: str


def _accept(ctx, r: RefRequest):
    from pixiu_cli.memory.notes import accept_proposal

    commission = ctx.settings().commission if ctx.settings is not None else None
    return accept_proposal(ctx.db, r.ref, ctx.stamp(), ctx.cost_method(), commission)


def _replace(ctx, r: RefRequest):
    from pixiu_cli.memory.notes import accept_replacement

    return accept_replacement(ctx.db, r.ref)


def _pin(ctx, r: RefRequest):
    from pixiu_cli.memory.notes import pin_note

    return pin_note(ctx.db, r.ref, True)


def _unpin(ctx, r: RefRequest):
    from pixiu_cli.memory.notes import pin_note

    return pin_note(ctx.db, r.ref, False)


@dataclass(frozen=True)
class EditRequest:
    ref: str
    text: str | None


def _edit(ctx, r: EditRequest):
    from pixiu_cli.memory.changes import edit_memory

    return edit_memory(ctx.db, r.ref, r.text, ctx.stamp(), ctx.edit_text)


@dataclass(frozen=True)
class NoteRequest:
    text: str | None
    kind: str
    symbol: str | None


def _remember(ctx, r: NoteRequest):
    from pixiu_cli.memory.notes import NewNote, add_note

    return add_note(ctx.db, NewNote(kind=r.kind, text=r.text or "", symbol=r.symbol, source="user"), ctx.stamp())


def _forget(ctx, r: RefRequest):
    from pixiu_cli.memory.changes import forget_memory

    return forget_memory(ctx.db, r.ref, ctx.stamp(), ctx.cost_method())


def _by_id(path: tuple[str, ...], summary: str, metavar: str, call, view: str, **more) -> Command:
    ref = argument("ref", Text(metavar, complete="memory"), f"{metavar}（见 memory list 的 ID 一栏，如 n13）")
    return Command(path, summary, (ref,), RefRequest, call, lazy(f"pixiu_cli.memory.views:{view}"), **more)


DECLARED = (
    Group(
        ("memory",), "记忆：列出、搜索笔记和交易（含作者），采纳模型提议，确认计划替换，置顶与修改。", default="list"
    ),
    Command(
        ("memory", "list"),
        "列出或搜索记忆（笔记 n… 和交易 d…）：ID、类型、标的、日期、作者、注入次数和内容。",
        (
            argument(
                "query", Text("文字"), "文字、代码、名称或类型（纪律、计划、观点、交易）", optional=True, many=True
            ),
            option("--kind", "kind", Choice((*NOTE_KINDS, "decision")), "只看一类：view | plan | rule | decision"),
            option("--symbol", "symbol", StockCode(), "只看这只股票"),
        ),
        ListRequest,
        _list,
        lazy("pixiu_cli.memory.views:show_memories"),
        record=lazy("pixiu_cli.memory.views:memories_record"),
        demo=True,
    ),
    _by_id(
        ("memory", "accept"),
        "采纳一条模型提议：笔记之后算作你自己的观点、计划或纪律；交易或预警此时才记录（只记一次）。",
        "提议ID",
        _accept,
        "show_accepted",
        demo=True,
    ),
    _by_id(
        ("memory", "replace"),
        "用新计划替换它所重述的旧计划（撤销新计划时旧计划恢复）。",
        "新计划ID",
        _replace,
        "show_replaced",
        demo=True,
    ),
    _by_id(("memory", "pin"), "置顶一条笔记：不受天数窗口限制，每轮都注入。", "ID", _pin, "show_pinned"),
    _by_id(("memory", "unpin"), "取消置顶。", "ID", _unpin, "show_pinned"),
    Command(
        ("memory", "edit"),
        "修改一条笔记的文字（不写新文本时在原文上编辑）。",
        (
            argument("ref", MEMORY_ID, "笔记 ID，如 n12"),
            argument("text", Text("新文本"), "新文本", optional=True, many=True, as_typed=True),
        ),
        EditRequest,
        _edit,
        lazy("pixiu_cli.memory.views:show_edited"),
        surfaces=REPL_ONLY,
    ),
    Command(
        ("remember",),
        "手动记下一条观点 / 计划 / 纪律（不写 --symbol 时从文字里认出股票）。",
        (
            argument("text", Text("文本"), "要记住的内容", optional=True, many=True, as_typed=True),
            option("--kind", "kind", Choice(NOTE_KINDS), "view 观点 | plan 计划 | rule 纪律", "view"),
            option("--symbol", "symbol", StockCode(), "关于哪只股票"),
        ),
        NoteRequest,
        _remember,
        lazy("pixiu_cli.memory.views:show_note"),
        demo=True,
    ),
    Command(
        ("forget",),
        "撤销一条记忆：删除笔记、撤销合并，或撤销一笔交易（持仓恢复）；预警规则如 a3。",
        (argument("ref", MEMORY_ID, "ID：笔记如 n12，交易如 d5，预警规则如 a3"),),
        RefRequest,
        _forget,
        lazy("pixiu_cli.memory.views:show_forgotten"),
        demo=True,
    ),
)
