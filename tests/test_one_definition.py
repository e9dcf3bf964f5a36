"""A module defines each top-level name once: a second `def` of the same name silently
replaces the first for every caller, which a merge of two branches can do unseen (ruff's F811
only sees a first definition never used before the second)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "pixiu_cli"


def _defined_twice(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = Counter(
        node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    )
    return [name for name, count in names.items() if count > 1]


def test_no_module_defines_a_function_or_class_twice():
    twice = {str(path.relative_to(PACKAGE)): names for path in PACKAGE.rglob("*.py") if (names := _defined_twice(path))}
    assert not twice, twice


def test_the_check_sees_a_second_definition(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f(a):\n    return a\n\n\ndef g():\n    return f(1)\n\n\ndef f(a, b):\n    return b\n")
    assert _defined_twice(module) == ["f"]
