"""What `pixiu watch …` and `/watch …` show."""

from __future__ import annotations

from pixiu_cli.kernel.render import Renderer


def show_watchlist(renderer: Renderer, items, spell) -> None:
    if not items:
        renderer.line(f"自选股为空：{spell('watch add')} CODE")
        return
    renderer.table("自选股", ["代码", "名称", "加入时间"], [[w.symbol, w.name or "—", w.added_at] for w in items])


def watchlist_record(items) -> list[dict]:
    return [{"symbol": w.symbol, "name": w.name, "added_at": w.added_at} for w in items]


def show_watched(renderer: Renderer, change, spell=None) -> None:
    symbol, added = change
    renderer.info(f"已加入自选：{symbol}" if added else f"{symbol} 已在自选中")


def show_unwatched(renderer: Renderer, symbol: str, spell=None) -> None:
    renderer.info(f"已移出自选：{symbol}")
