"""What `pixiu alias` and `/alias` show: the aliases table and the confirmations."""

from __future__ import annotations

from pixiu_cli.kernel.render import Renderer

_SOURCES = {"user": "用户", "shipped": "内置昵称"}


def alias_rows(rows) -> list[list[str]]:
    return [[r.alias, r.symbol, r.name or "—", _SOURCES.get(r.source, r.source)] for r in rows]


def show_alias(renderer: Renderer, outcome, spell=None) -> None:
    if outcome.action == "list":
        renderer.table("股票别名", ["别名", "代码", "名称", "来源"], alias_rows(outcome.rows))
    elif outcome.action == "remove":
        renderer.info(f"已删除别名 {outcome.alias}")
    else:
        row = outcome.rows[0]
        renderer.info(f"已设置别名：{row.alias} → {row.symbol}{' ' + row.name if row.name else ''}")


def alias_record(outcome) -> list[dict] | None:
    return [r.__dict__ for r in outcome.rows] if outcome.action == "list" else None
