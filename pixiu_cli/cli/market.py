"""`pixiu watch …`; `pixiu data …` and `pixiu chart` are declared in commands/market_data.py."""

from __future__ import annotations

from typing import Annotated

import typer

from pixiu_cli.cli import common, declared
from pixiu_cli.cli.common import JsonOpt, database, now, stock_code

watch_app = typer.Typer(help="自选股（同步时与持仓一起更新）。", add_completion=False)


@watch_app.command("add")
def watch_add(code: Annotated[str, typer.Argument(help="股票代码")]) -> None:
    """加入自选股。"""
    from pixiu_cli.services.market import watch

    symbol = stock_code(code)
    with database() as db:
        added = watch(db, symbol, now())
    common.renderer().info(f"已加入自选：{symbol}" if added else f"{symbol} 已在自选中")


@watch_app.command("remove")
def watch_remove(code: Annotated[str, typer.Argument(help="股票代码")]) -> None:
    """移出自选股。"""
    from pixiu_cli.services.market import unwatch

    symbol = stock_code(code)
    with database() as db:
        removed = unwatch(db, symbol)
    if not removed:
        raise common.CliError(f"{symbol} 不在自选中")
    common.renderer().info(f"已移出自选：{symbol}")


@watch_app.command("list")
def watch_list(as_json: JsonOpt = False) -> None:
    """列出自选股。"""
    from pixiu_cli.services.market import watchlist

    with database() as db:
        items = watchlist(db)
    renderer = common.renderer()
    if as_json:
        renderer.json([{"symbol": w.symbol, "name": w.name, "added_at": w.added_at} for w in items])
    elif not items:
        renderer.line("自选股为空：pixiu watch add CODE")
    else:
        renderer.table("自选股", ["代码", "名称", "加入时间"], [[w.symbol, w.name or "—", w.added_at] for w in items])


def register(app: typer.Typer) -> None:
    declared.register(app, ("data",))
    app.add_typer(watch_app, name="watch")
    declared.register(app, ("chart",))
