"""The stored vocabulary (note kinds, trade sides and their Chinese labels, the context-block
marker) is defined in one module and imported everywhere else."""

from __future__ import annotations

import ast
import functools

from pixiu_cli.kernel.vocabulary import (
    CONTEXT_CLOSE,
    CONTEXT_OPEN,
    MEMORY_KIND_NAMES,
    NOTE_KIND_NAMES,
    NOTE_KINDS,
    SIDE_NAMES,
    SIDES,
    side_name,
)
from tests.helpers import package_syntax_trees, walked


@functools.cache
def _nodes() -> dict[type, list[tuple[str, ast.AST]]]:
    """The product's dict displays, tuples and constants, by module: one walk of its trees
    for both checks (a walk of every node is most of their cost)."""
    found: dict[type, list[tuple[str, ast.AST]]] = {ast.Dict: [], ast.Tuple: [], ast.Constant: []}
    for name, tree in package_syntax_trees():
        for node in walked(tree):
            if type(node) in found:
                found[type(node)].append((name, node))
    return found


def _literal_keys(node: ast.Dict) -> set:
    return {k.value for k in node.keys if isinstance(k, ast.Constant)}


def test_labels_are_mapped_in_one_module():
    owners = {}
    for name, node in _nodes()[ast.Dict]:
        keys = _literal_keys(node)
        if keys >= {"buy", "sell"} or keys >= {"view", "plan", "rule"}:
            owners.setdefault(name, []).append(sorted(keys))
    for name, node in _nodes()[ast.Tuple]:
        if [getattr(e, "value", None) for e in node.elts] in (["buy", "sell"], ["view", "plan", "rule"]):
            owners.setdefault(name, []).append("tuple")
    assert set(owners) == {"kernel/vocabulary.py"}, owners


def test_the_block_marker_is_spelled_in_one_module():
    spelled = sorted(name for name, node in _nodes()[ast.Constant] if node.value in (CONTEXT_OPEN, CONTEXT_CLOSE))
    assert spelled == ["kernel/vocabulary.py", "kernel/vocabulary.py"]


def test_vocabulary_values():
    assert NOTE_KINDS == tuple(NOTE_KIND_NAMES) == ("view", "plan", "rule")
    assert SIDES == tuple(SIDE_NAMES) == ("buy", "sell")
    assert [side_name(s) for s in SIDES] == ["买入", "卖出"] and side_name("short") == "short"
    assert MEMORY_KIND_NAMES["decision"] == "交易" and MEMORY_KIND_NAMES["user_note"] == "笔记"
