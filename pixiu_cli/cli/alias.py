"""`pixiu alias`: the user's names for stocks (宁王 → 300750)."""

from __future__ import annotations

from typing import Annotated

import typer

from pixiu_cli.cli import common


def alias_command(
    name: Annotated[str | None, typer.Argument(help="别名，如 宁王")] = None,
    code: Annotated[str | None, typer.Argument(help="六位股票代码，如 300750")] = None,
    remove: Annotated[bool, typer.Option("--remove", help="删除这个别名")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="以 JSON 列出")] = False,
    demo: common.DemoOpt = False,
) -> None:
    """股票别名：pixiu alias 宁王 300750 设置；pixiu alias --remove 宁王 删除；不带参数列出全部。"""
    from pixiu_cli.selection.aliases import add_alias, alias_table, list_aliases, remove_alias
    from pixiu_cli.store.database import open_database
    from pixiu_cli.store.shared import stores_of

    settings = common.settings()
    db = open_database(settings.demo_db_path if demo else settings.db_path)
    renderer = common.renderer()
    try:
        master = stores_of(db).securities
        if name is None:
            rows = list_aliases(master)
            if as_json:
                renderer.json([r.__dict__ for r in rows])
            else:
                renderer.table("股票别名", ["别名", "代码", "名称", "来源"], alias_table(rows))
            return
        if remove:
            if code is not None:
                raise common.CliError("--remove 只需要别名")
            remove_alias(master, name)
            renderer.info(f"已删除别名 {name}")
            return
        if code is None:
            raise common.CliError("用法：pixiu alias 别名 代码（如 pixiu alias 宁王 300750）")
        row = add_alias(master, name, code, common.now(settings))
        renderer.info(f"已设置别名：{row.alias} → {row.symbol}{' ' + row.name if row.name else ''}")
    finally:
        db.close()


def register(app: typer.Typer) -> None:
    app.command("alias")(alias_command)
