"""No module of pixiu_cli imports itself round a circle, directly or through others: for
every import a → b in grimp's graph of the package (the graph lint-imports checks, with
function-level imports), b never leads back to a. The layer contracts keep packages
pointing one way; this keeps the modules inside a package, and its __init__, from going
round as well."""

from __future__ import annotations

import grimp
import pytest


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph("pixiu_cli")


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


def test_the_check_finds_the_circle_the_repl_once_had(graph):
    """/retry's once imported the loop, which imported the slash commands' module. The
    registry now loads that module by name on first use (no edge in the graph); the module
    still imports the turn's, so the turn importing it back is that circle again."""
    graph.add_import(importer="pixiu_cli.repl.turn", imported="pixiu_cli.repl.declared_commands")
    try:
        found = circles(graph)
    finally:
        graph.remove_import(importer="pixiu_cli.repl.turn", imported="pixiu_cli.repl.declared_commands")
    assert ("pixiu_cli.repl.turn", "pixiu_cli.repl.declared_commands") in found
    assert ("pixiu_cli.repl.declared_commands", "pixiu_cli.repl.turn") in found


def test_the_check_finds_the_circle_the_sources_once_had(graph):
    """sources.py once imported the adapters that import it (open_source, now in source_by_name.py)."""
    graph.add_import(importer="pixiu_cli.market.sources", imported="pixiu_cli.market.akshare_source")
    try:
        found = circles(graph)
    finally:
        graph.remove_import(importer="pixiu_cli.market.sources", imported="pixiu_cli.market.akshare_source")
    assert ("pixiu_cli.market.akshare_source", "pixiu_cli.market.sources") in found
    assert ("pixiu_cli.market.sources", "pixiu_cli.market.akshare_source") in found
