"""Test modules share code only through tests/helpers.py (and the fake servers next to it):
a test module never imports another test module or a conftest."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
SHARED = {"tests.helpers", "tests.bad_server"}


def test_no_test_module_imports_another_test_module_or_a_conftest():
    offenders = []
    for path in TESTS.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            offenders += [
                f"{path.relative_to(TESTS)}: {name}"
                for name in names
                if name.startswith("tests.") and name not in SHARED
            ]
    assert offenders == []
