"""A `_name` is its module's own: no module of the product imports one from another module
(`from pixiu_cli.home.store import _rows`) or reaches one through another module
(`investor._rows`). What two modules share has a public name in the module that owns it
(the store's row mapping: kernel/store/rows.py). A test imports no private name of the product
either: what it calls is public. It may still reach a module's state through the module
(`counts._tokenizer.cache_clear()`, a monkeypatched `_stored_table`): resetting a cache or
standing in for a dependency is what a seam is for, and it is named where it is used."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import package_syntax_trees, walked

TESTS = Path(__file__).resolve().parent


def _module_name(path: str) -> str:
    """`kernel/store/rows.py` → `pixiu_cli.kernel.store.rows`; a package's `__init__.py` is the package."""
    parts = path.removesuffix(".py").split("/")
    return ".".join(["pixiu_cli", *(parts[:-1] if parts[-1] == "__init__" else parts)])


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_names_used(tree: ast.Module, own: str, modules: set[str]) -> list[tuple[int, str]]:
    """(line, `module._name`) for each private name of another pixiu module that `tree`
    (the module `own`) imports or reads as an attribute. `modules`: every module's name."""
    found, aliases = [], {}
    for node in walked(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pixiu_cli"):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if full in modules:  # `from pixiu_cli.kernel.store import rows`: a module, named
                    aliases[alias.asname or alias.name] = full
                elif _private(alias.name) and node.module != own:
                    found.append((node.lineno, full))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("pixiu_cli"):
                    aliases[alias.asname or alias.name] = alias.name
    for node in walked(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            target = aliases.get(ast.unparse(node.value))
            if target is not None and target != own:
                found.append((node.lineno, f"{target}.{node.attr}"))
    return found


def test_no_module_uses_another_modules_private_names():
    trees = package_syntax_trees()
    modules = {_module_name(path) for path, _ in trees}
    assert {"pixiu_cli.kernel.store.rows", "pixiu_cli.kernel.store"} <= modules  # the walk reached the package
    offenders = [
        f"{path}:{line} {name}"
        for path, tree in trees
        for line, name in private_names_used(tree, _module_name(path), modules)
    ]
    assert offenders == []


def private_names_imported(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, `module._name`) for each `from pixiu_cli… import _name` in `tree`."""
    return [
        (node.lineno, f"{node.module}.{alias.name}")
        for node in walked(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pixiu_cli")
        for alias in node.names
        if _private(alias.name)
    ]


def test_no_test_imports_a_private_name_of_the_product():
    paths = sorted(TESTS.rglob("*.py"))
    assert len(paths) > 200  # the walk reached the suite
    offenders = [
        f"{path.relative_to(TESTS)}:{line} {name}"
        for path in paths
        for line, name in private_names_imported(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert offenders == []


def test_each_way_of_reaching_a_private_name_is_found():
    modules = {"pixiu_cli.kernel.store.rows", "pixiu_cli.home.store", "pixiu_cli.market.data", "pixiu_cli.kernel.store"}
    source = """
from pixiu_cli.home.store import InvestorStore, _rows
from pixiu_cli.kernel.store import rows
from pixiu_cli.kernel.store.rows import __doc__, dict_rows
import pixiu_cli.market.data as data
from pixiu_cli.home.store import _own
rows._plan(1)
data._private
rows.record
self._cache
"""
    found = private_names_used(ast.parse(source), "pixiu_cli.kernel.store.other", modules)
    assert sorted(found) == [
        (2, "pixiu_cli.home.store._rows"),
        (6, "pixiu_cli.home.store._own"),
        (7, "pixiu_cli.kernel.store.rows._plan"),
        (8, "pixiu_cli.market.data._private"),
    ]
    # a module's own private names are its business
    assert sorted(private_names_used(ast.parse(source), "pixiu_cli.home.store", modules)) == [
        (7, "pixiu_cli.kernel.store.rows._plan"),
        (8, "pixiu_cli.market.data._private"),
    ]
    # a test's imports: a private name is found, a dunder or a public one is not
    assert private_names_imported(ast.parse(source)) == [
        (2, "pixiu_cli.home.store._rows"),
        (6, "pixiu_cli.home.store._own"),
    ]
