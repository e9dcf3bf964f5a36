"""`pixiu cache`: cache hits, cost and savings, and why each call missed."""

from __future__ import annotations

from typing import Annotated

import typer

from pixiu_cli.cli import common


def cache(
    as_json: Annotated[bool, typer.Option("--json", help="输出 JSON")] = False,
    conversation: Annotated[int | None, typer.Option("--conversation", help="对话 ID（默认最近的对话）")] = None,
    demo: common.DemoOpt = False,
) -> None:
    """缓存命中、费用与节省（本对话 / 今天 / 全部），以及每次调用未命中的原因。"""
    from pixiu_cli.accounting.report import build_report
    from pixiu_cli.store.conversations import ConversationStore
    from pixiu_cli.store.database import open_database
    from pixiu_cli.views.presenters import show_cache

    settings = common.settings()
    db = open_database(settings.demo_db_path if demo else settings.db_path)
    try:
        store = ConversationStore(db, clock=common.clock(settings))
        if conversation is not None and store.get_conversation(conversation) is None:
            raise common.CliError(f"没有 ID 为 {conversation} 的对话")
        latest = store.latest_conversation()
        conv_id = conversation if conversation is not None else (latest.id if latest else None)
        report = build_report(store, conv_id, common.configured(settings).prices)
    finally:
        db.close()
    renderer = common.renderer()
    if as_json:
        renderer.json(report.as_json())
    else:
        show_cache(renderer, report)


def register(app: typer.Typer) -> None:
    app.command("cache")(cache)
