"""Functions in the product stay short enough to read on a screen: none over 60 lines, and
the turn loop within 35. Ruff's C901 bounds their complexity; this bounds their length,
which ruff has no rule for."""

from __future__ import annotations

import ast
import functools

from tests.helpers import package_syntax_trees

MAX_LINES = 60
MAX_TURN_LOOP_LINES = 35


def function_lengths(source: str | ast.Module) -> dict[str, int]:
    """Lines of every function and method (decorators excluded), by qualified name."""
    lengths: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                lengths[prefix + child.name] = child.end_lineno - child.lineno + 1
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(source) if isinstance(source, str) else source, "")
    return lengths


@functools.cache
def package_function_lengths() -> dict[str, int]:
    return {
        f"{path}::{name}": length
        for path, tree in package_syntax_trees()
        for name, length in function_lengths(tree).items()
    }


def test_no_function_in_the_package_is_over_60_lines():
    lengths = package_function_lengths()
    assert len(lengths) > 500  # the walk reached the whole package
    assert {name: n for name, n in lengths.items() if n > MAX_LINES} == {}


def test_the_turn_loop_fits_in_35_lines():
    assert package_function_lengths()["conversation/agent/loop.py::Agent.run_turn"] <= MAX_TURN_LOOP_LINES


def test_the_measure_counts_every_line_of_a_nested_method():
    body = "\n".join(f"            x{i} = {i}" for i in range(60))
    source = f"class Outer:\n    def method(self):\n        def inner():\n{body}\n        return inner\n"
    assert function_lengths(source) == {"Outer.method": 63, "Outer.method.inner": 61}
