"""`pixiu sessions`: list and search conversations, rename one, delete one (undone with
--restore: its turns and calls stay on record)."""

from __future__ import annotations

from typing import Annotated

import typer

from pixiu_cli.cli import common


def sessions(
    text: Annotated[
        str | None, typer.Argument(help="只列出标题或内容含有这段文字的对话；配合 --rename 时是新标题")
    ] = None,
    as_json: common.JsonOpt = False,
    limit: Annotated[int, typer.Option("--limit", help="最多列出几个", min=1)] = 20,
    rename: Annotated[int | None, typer.Option("--rename", help="把对话 ID 改名为 TEXT")] = None,
    delete: Annotated[int | None, typer.Option("--delete", help="删除对话 ID（--restore 可恢复）")] = None,
    restore: Annotated[int | None, typer.Option("--restore", help="恢复删除的对话 ID")] = None,
    demo: common.DemoOpt = False,
) -> None:
    """列出、搜索、改名、删除或恢复对话。"""
    from pixiu_cli.services import conversations as service

    if sum(x is not None for x in (rename, delete, restore)) > 1:
        raise common.CliError("--rename、--delete、--restore 只能选一个")
    renderer = common.renderer()
    with common.workspace(demo) as opened:
        store, clock = opened.conversations, opened.clock
        if rename is not None:
            done = service.rename_conversation(store, rename, text or "")
            renderer.info(f"已把对话 {done.id} 改名为：{done.title}")
        elif delete is not None:
            done = service.delete_conversation(store, delete, clock().isoformat(timespec="seconds"))
            renderer.info(
                f"已删除对话 {done.id}：{done.title or '（无标题）'}（记录保留；pixiu sessions --restore {done.id} 恢复）"
            )
        elif restore is not None:
            done = service.restore_conversation(store, restore)
            renderer.info(f"已恢复对话 {done.id}：{done.title or '（无标题）'}")
        else:
            _list(renderer, service.recent_conversations(store, limit, text), as_json, text)


def _list(renderer, found, as_json: bool, text: str | None) -> None:
    from pixiu_cli.services.conversations import beijing_minute

    if as_json:
        renderer.json(
            [
                {"id": c.id, "title": c.title, "turns": c.turn_count, "updated_at": c.updated_at, "model": c.model}
                for c in found
            ]
        )
    elif not found:
        renderer.line(f"没有含有「{text}」的对话" if text else "还没有对话")
    else:
        rows = [[str(c.id), beijing_minute(c.updated_at), str(c.turn_count), c.title or "（无标题）"] for c in found]
        renderer.table("对话（pixiu chat --resume ID 继续）", ["ID", "更新时间（北京时间）", "轮数", "标题"], rows)


def register(app: typer.Typer) -> None:
    app.command()(sessions)
