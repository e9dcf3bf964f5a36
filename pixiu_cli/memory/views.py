"""What `/memory`, `pixiu memory …`, `/remember` and `/forget` show: one memory table for
both surfaces, and the confirmations of each change."""

from __future__ import annotations

from pixiu_cli.kernel.render import Renderer
from pixiu_cli.kernel.vocabulary import AUTHOR_NAMES, MEMORY_KIND_NAMES

MEMORY_COLUMNS = ["ID", "类型", "标的", "日期", "作者", "注入次数", "内容"]


def _kind_cell(e) -> str:
    name = MEMORY_KIND_NAMES.get(e.kind, e.kind)
    if e.replaced_by:
        return f"{name}（已被 n{e.replaced_by} 替换）"
    if e.replace_offered_by:
        return f"{name}（待确认由 n{e.replace_offered_by} 替换）"
    return f"{name}·置顶" if e.pinned else name


def memory_rows(entries) -> list[list[str]]:
    return [
        [
            e.ref,
            _kind_cell(e),
            e.symbol or "—",
            e.created_at[:10],
            AUTHOR_NAMES.get(e.author, e.author),
            str(e.inject_count),
            e.text,
        ]
        for e in entries
    ]


def show_memories(renderer: Renderer, entries, spell) -> None:
    if not entries:
        renderer.info(f"没有找到记忆。用 {spell('remember')} 文本 手动添加。")
        return
    title = f"记忆（{len(entries)} 条，{spell('forget')} ID 撤销或删除）"
    renderer.table(title, MEMORY_COLUMNS, memory_rows(entries))


def memories_record(entries) -> list[dict]:
    keys = ("ref", "kind", "symbol", "created_at", "author", "source", "text", "pinned")
    return [{k: getattr(e, k) for k in keys} for e in entries]


def show_note(renderer: Renderer, write, spell=None) -> None:
    from pixiu_cli.memory.notes import note_notice

    renderer.info(note_notice(write))


def show_accepted(renderer: Renderer, write, spell=None) -> None:
    """A note taken as the user's, or the trade or alert a proposal made (its own line)."""
    from pixiu_cli.memory.notes import accept_notice

    renderer.info(write.notice() if hasattr(write, "notice") else accept_notice(write))


def show_replaced(renderer: Renderer, done, spell=None) -> None:
    from pixiu_cli.memory.views_notices import replacement_notice

    renderer.info(replacement_notice(done))


def show_pinned(renderer: Renderer, pinned, spell=None) -> None:
    from pixiu_cli.memory.views_notices import pin_notice

    renderer.info(pin_notice(pinned))


def show_edited(renderer: Renderer, edited, spell=None) -> None:
    renderer.info(f"已修改 #{edited.ref}：{edited.text}")


def show_forgotten(renderer: Renderer, forgetting, spell=None) -> None:
    if forgetting.kind == "alert":
        renderer.info(f"已撤销预警 {forgetting.ref}")
    elif forgetting.kind == "trade":
        from pixiu_cli.memory.views_notices import undo_notice

        renderer.info(undo_notice(forgetting.ref, forgetting.done))
    else:
        from pixiu_cli.memory.views_notices import forget_notice

        renderer.info(forget_notice(forgetting.ref, forgetting.done))
