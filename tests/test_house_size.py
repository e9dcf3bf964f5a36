"""The house stays as small and as flat as the restructure left it. Before it the package had
331 modules and 503 imports made inside functions; the goal was a third fewer modules and half
the imports inside functions. A new module or a new lazy import must make room for itself
(merge a module only one other imports; import at the top what every command that loads the
module already loads: benchmarks/command_modules.py measures that)."""

from __future__ import annotations

import ast

from tests.helpers import package_syntax_trees

MODULES_BEFORE = 331
IMPORTS_INSIDE_BEFORE = 503


def imports_inside_functions(tree: ast.Module) -> int:
    """Import statements inside any function, each counted once (a nested function's too)."""
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            lines |= {s.lineno for s in ast.walk(node) if isinstance(s, ast.Import | ast.ImportFrom)}
    return len(lines)


def test_the_package_has_a_third_fewer_modules_than_before_the_restructure():
    modules = len(package_syntax_trees())
    assert modules <= MODULES_BEFORE * 2 / 3, modules


def test_half_as_many_imports_are_made_inside_functions():
    inside = sum(imports_inside_functions(tree) for _, tree in package_syntax_trees())
    assert inside <= IMPORTS_INSIDE_BEFORE / 2, inside


def test_the_count_sees_an_import_inside_a_function():
    tree = ast.parse("import os\ndef f():\n    import json\n    def g():\n        from re import sub\n")
    assert imports_inside_functions(tree) == 2
