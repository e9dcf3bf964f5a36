"""SQL lives in the store modules only (each area's `store.py`, the kernel's `db/`): no other module runs a statement, spells one,
reaches a table through sqlite-utils or touches the raw connection. A read another layer
needs is a store method with a name, so a schema change is one package's business."""

from __future__ import annotations

import ast
import re

from tests.helpers import is_store_module, package_syntax_trees, walked

# Methods of sqlite3 connections and sqlite-utils databases and tables that reach the data.
_DATABASE_METHODS = {
    "execute",
    "executemany",
    "executescript",
    "query",
    "rows_where",
    "create_table",
    "table_names",
    "view_names",
    "attach",
    "vacuum",
    "enable_wal",
    "disable_wal",
    "insert_all",
    "upsert_all",
    "delete_where",
    "count_where",
}
_STATEMENT = re.compile(
    r"^\s*(select\b.*\bfrom\b|insert\s+(or\s+\w+\s+)?into\b|replace\s+into\b|update\s+\S+\s+set\b|delete\s+from\b"
    r"|create\s+(temp\s+|unique\s+|virtual\s+)?(table|index|view|trigger)\b|drop\s+(table|index|view|trigger)\b"
    r"|alter\s+table\b|pragma\s+\w+|with\s+\w+(\s*\([^)]*\))?\s+as\s*\(|begin(\s+(immediate|exclusive|deferred))?\s*;?\s*$"
    r"|(commit|rollback|vacuum)\s*;?\s*$|(savepoint|release)\s+\w+\s*;?\s*$)",
    re.IGNORECASE | re.DOTALL,
)


def _spelled(node: ast.AST) -> str | None:
    """The text of a string literal; an f-string's placeholders read as `?`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "?" for v in node.values)
    return None


def _is_database(node: ast.AST) -> bool:
    """`db`, `database`, `self.db`, `store.db`…: what the code calls a database."""
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name in {"db", "database", "conn", "connection"} or name.endswith("_db")


def _not_literals(tree: ast.Module) -> set[int]:
    """Docstrings (prose) and the pieces of f-strings (read whole as their f-string)."""
    skipped = set()
    for node in walked(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            skipped.add(id(node.value))
        elif isinstance(node, ast.JoinedStr):
            skipped.update(id(v) for v in node.values)
    return skipped


def sql_outside_store(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, what) for each statement, table access or raw connection use in `tree`."""
    found, skipped = [], _not_literals(tree)
    for node in walked(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method = node.func.attr
            one_name = len(node.args) == 1 and _spelled(node.args[0]) is not None and not node.keywords
            if method in _DATABASE_METHODS or (method == "table" and one_name):
                found.append((node.lineno, f".{method}()"))
        elif isinstance(node, ast.Attribute) and node.attr == "conn":
            found.append((node.lineno, ".conn"))
        elif isinstance(node, ast.Subscript) and _is_database(node.value):
            found.append((node.lineno, f"{ast.unparse(node)}"))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            names = {a.name for a in node.names}
            for module in modules:
                # sqlite-utils' Database may be named in a signature; nothing else of it or sqlite3
                if module == "sqlite3" or (module == "sqlite_utils" and names != {"Database"}):
                    found.append((node.lineno, f"import {module}"))
        elif id(node) not in skipped and (text := _spelled(node)) is not None and _STATEMENT.match(text):
            found.append((node.lineno, repr(text[:60])))
    return found


def test_no_sql_outside_the_store():
    trees = package_syntax_trees()
    assert sum(is_store_module(path) for path, _ in trees) > 15  # the walk reached the stores
    offenders = [
        f"{path}:{line} {what}"
        for path, tree in trees
        if not is_store_module(path)
        for line, what in sql_outside_store(tree)
    ]
    assert offenders == []


def test_the_store_itself_is_what_the_check_finds():
    """The same check over the stores finds their SQL: it can see every form it forbids."""
    found = {
        what for path, tree in package_syntax_trees() if is_store_module(path) for _, what in sql_outside_store(tree)
    }
    assert {".execute()", ".conn", "import sqlite3"} <= found
    assert any(w.startswith("'select") or w.startswith("'SELECT") for w in found)


def test_each_form_of_sql_is_found():
    source = '''
import sqlite3
from sqlite_utils import Database, Table
def read(db, store, renderer, names):
    """select the rows from the table (a docstring is prose)"""
    db.execute("select 1")
    store.db["holdings"].rows_where("symbol = ?", ["600519"])
    db.conn.close()
    db.table("notes")
    rows = db.query(f"SELECT * FROM {name} WHERE id = ?")
    sql = "insert or replace into notes (text) values (?)"
    sql = "update holdings set shares = 0", "PRAGMA user_version"
    renderer.table("持仓", ["代码"], [])  # a drawn table is no database table
    names.table(holdings)
    words = "select 的说明"  # a word, no statement
'''
    found = sorted(sql_outside_store(ast.parse(source)))
    assert [line for line, _ in found] == [2, 3, 6, 7, 7, 8, 9, 10, 10, 11, 12, 12]
