"""Every table the user sees is drawn in a views module (`is_view_module`): a
`.table(title, columns, rows)` call with a title elsewhere is a table drawn by an adapter or a use case."""

from __future__ import annotations

import ast

from tests.helpers import is_view_module, package_syntax_trees, walked


def drawn_tables(source: str | ast.Module) -> list[int]:
    """Lines of `.table(...)` calls whose first argument is a title (a string or an f-string)."""
    found = []
    for node in walked(ast.parse(source) if isinstance(source, str) else source):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "table":
            first = node.args[0] if node.args else None
            if isinstance(first, ast.JoinedStr) or (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                found.append(node.lineno)
    return found


def test_every_table_is_drawn_in_views():
    outside = [
        f"{path}:{line}"
        for path, tree in package_syntax_trees()
        if not is_view_module(path)
        for line in drawn_tables(tree)
    ]
    assert outside == []


def test_the_scan_tells_a_drawn_table_from_a_name_lookup():
    assert drawn_tables('renderer.table("预警规则", ["编号"], rows)\nr.table(f"新闻：{s}", c, rows)') == [1, 2]
    assert drawn_tables("names.table(holdings)\nself.db.table(name)") == []
