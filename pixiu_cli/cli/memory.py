"""`pixiu memory list|accept|replace`: the memory for scripts — every note and trade with who
wrote it, the user's acceptance of a proposal the model made, and of a plan's offer to replace
an older one (as `/memory accept` and `/memory replace` in the REPL)."""

from __future__ import annotations

from typing import Annotated

import typer

from pixiu_cli.cli import common

memory_app = typer.Typer(help="记忆：列出笔记和交易（含作者），采纳模型提议，确认计划替换。", no_args_is_help=True)


@memory_app.command("list")
def memory_list(
    query: Annotated[str | None, typer.Argument(help="文字、代码、名称或类型（纪律、计划、观点、交易）")] = None,
    as_json: common.JsonOpt = False,
    demo: common.DemoOpt = False,
) -> None:
    """列出记忆：ID、类型、标的、日期、作者（用户 / 模型记录（用户原话）/ 导入 / 模型提议）和内容。"""
    from pixiu_cli.domain.vocabulary import AUTHOR_NAMES, MEMORY_KIND_NAMES
    from pixiu_cli.services.memory_search import search_memories

    with common.database(demo) as db:
        entries = search_memories(db, query, limit=200)
    shown = common.renderer()
    if as_json:
        keys = ("ref", "kind", "symbol", "created_at", "author", "source", "text", "pinned")
        shown.json([{k: getattr(e, k) for k in keys} for e in entries])
        return
    if not entries:
        shown.line("没有找到记忆。")
        return
    rows = [
        [
            e.ref,
            MEMORY_KIND_NAMES.get(e.kind, e.kind),
            e.symbol or "—",
            e.created_at[:10],
            AUTHOR_NAMES.get(e.author, e.author),
            e.text,
        ]
        for e in entries
    ]
    shown.table(f"记忆（{len(entries)} 条）", ["ID", "类型", "标的", "日期", "作者", "内容"], rows)


@memory_app.command("accept")
def memory_accept(
    ref: Annotated[str, typer.Argument(help="模型提议的 ID，如 n13")], demo: common.DemoOpt = False
) -> None:
    """采纳一条模型提议：之后它算作你自己的观点、计划或纪律。"""
    from pixiu_cli.services.notes import accept_notice, accept_proposal

    with common.database(demo) as db:
        accepted = accept_proposal(db, ref)
    common.renderer().info(accept_notice(accepted))


@memory_app.command("replace")
def memory_replace(
    ref: Annotated[str, typer.Argument(help="新计划的 ID，如 n13（记下计划时的确认里给出）")],
    demo: common.DemoOpt = False,
) -> None:
    """用新计划替换它所重述的旧计划（与 /memory replace 相同；/forget 新计划可撤销，旧计划恢复）。"""
    from pixiu_cli.services.notes import accept_replacement
    from pixiu_cli.views.notices import replacement_notice

    with common.database(demo) as db:
        done = accept_replacement(db, ref)
    common.renderer().info(replacement_notice(done))


def register(app: typer.Typer) -> None:
    app.add_typer(memory_app, name="memory")
