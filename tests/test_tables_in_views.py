"""Every table the user sees is drawn in views/: a `.table(title, columns, rows)` call with a
title outside views/ is a table drawn by an adapter or a service."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "pixiu_cli"


def drawn_tables(source: str) -> list[int]:
    """Lines of `.table(...)` calls whose first argument is a title (a string or an f-string)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "table":
            first = node.args[0] if node.args else None
            if isinstance(first, ast.JoinedStr) or (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                found.append(node.lineno)
    return found


def test_every_table_is_drawn_in_views():
    outside = [
        f"{path.relative_to(PACKAGE)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if "__pycache__" not in path.parts and path.relative_to(PACKAGE).parts[0] != "views"
        for line in drawn_tables(path.read_text(encoding="utf-8"))
    ]
    assert outside == []


def test_the_scan_tells_a_drawn_table_from_a_name_lookup():
    assert drawn_tables('renderer.table("预警规则", ["编号"], rows)\nr.table(f"新闻：{s}", c, rows)') == [1, 2]
    assert drawn_tables("names.table(holdings)\nself.db.table(name)") == []
