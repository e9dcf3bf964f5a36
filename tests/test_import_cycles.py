"""No module of pixiu_cli imports itself round a circle, directly or through others: for
every import a → b in grimp's graph of the package (the graph lint-imports checks, with
function-level imports) and every import by name a string makes (`importlib.import_module
("pixiu_cli.x")`, a lazy "pixiu_cli.x:function"), b never leads back to a. The layer contracts
keep packages pointing one way; this keeps the modules inside a package, and its __init__,
from going round as well."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import grimp
import pytest

import pixiu_cli

_MODULE_NAMED = re.compile(r"(pixiu_cli(?:\.\w+)+)(?::\w+)?")


def string_imports(module: str, source: str, modules: set[str]) -> set[tuple[str, str]]:
    """(module, imported) for each string in `source` that is a whole module path, or a
    "module:name" target, of one of `modules` (a longer path names an attribute of its module)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        named = (
            _MODULE_NAMED.fullmatch(node.value)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            else None
        )
        target = named.group(1) if named else None
        while target is not None and target not in modules and "." in target:
            target = target.rsplit(".", 1)[0]
        if target in modules and target != module:
            found.add((module, target))
    return found


def _module_of(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@pytest.fixture(scope="module")
def graph():
    graph = grimp.build_graph("pixiu_cli")
    root = Path(pixiu_cli.__file__).parent
    for path in sorted(root.rglob("*.py")):
        for importer, imported in string_imports(_module_of(path, root), path.read_text(), graph.modules):
            graph.add_import(importer=importer, imported=imported)
    return graph


def circles(graph) -> list[tuple[str, str]]:
    """Every (importer, imported) pair of pixiu_cli where `imported` leads back to `importer`."""
    return [
        (module, imported)
        for module in sorted(graph.modules)
        if module.startswith("pixiu_cli")
        for imported in sorted(graph.find_modules_directly_imported_by(module))
        if imported.startswith("pixiu_cli") and graph.chain_exists(importer=imported, imported=module)
    ]


def test_no_module_imports_round_a_circle(graph):
    assert circles(graph) == []


def test_the_check_sees_imports_by_name():
    source = (
        'importlib.import_module("pixiu_cli.repl.turn")\nlazy("pixiu_cli.account.views:show_cash")\n"pixiu_cli docs"'
    )
    modules = {"pixiu_cli.repl.turn", "pixiu_cli.account.views", "pixiu_cli.repl.registry"}
    assert string_imports("pixiu_cli.repl.registry", source, modules) == {
        ("pixiu_cli.repl.registry", "pixiu_cli.repl.turn"),
        ("pixiu_cli.repl.registry", "pixiu_cli.account.views"),
    }


def test_the_graph_holds_the_lazy_targets(graph):
    """The root group names each word's module as a string (cli/root.py's TABLE); the check
    follows it as an import, beside the imports grimp reads."""
    assert graph.direct_import_exists(importer="pixiu_cli.cli.root", imported="pixiu_cli.account.commands")
    assert graph.direct_import_exists(importer="pixiu_cli.account.commands", imported="pixiu_cli.account.views")


def test_the_check_finds_the_circle_the_repl_once_had(graph):
    """/retry's once imported the loop, which imported the slash commands' module; later the
    registry loaded that module by name while the module imported the registry, the REPL's
    state and its turn (a circle only string imports showed). The module still imports the
    REPL's state, so the state importing it back is that circle again."""
    graph.add_import(importer="pixiu_cli.repl.state", imported="pixiu_cli.repl.registry")
    try:
        found = circles(graph)
    finally:
        graph.remove_import(importer="pixiu_cli.repl.state", imported="pixiu_cli.repl.registry")
    assert ("pixiu_cli.repl.state", "pixiu_cli.repl.registry") in found
    assert ("pixiu_cli.repl.registry", "pixiu_cli.repl.state") in found


def test_the_check_finds_the_circle_the_sources_once_had(graph):
    """sources.py once imported the adapters that import it (open_source, now in source_by_name.py)."""
    graph.add_import(importer="pixiu_cli.market.sources", imported="pixiu_cli.market.akshare_source")
    try:
        found = circles(graph)
    finally:
        graph.remove_import(importer="pixiu_cli.market.sources", imported="pixiu_cli.market.akshare_source")
    assert ("pixiu_cli.market.akshare_source", "pixiu_cli.market.sources") in found
    assert ("pixiu_cli.market.sources", "pixiu_cli.market.akshare_source") in found
