"""No import circle inside the packages issue 22 reshaped (market's sources, the domain types
below the store, the store, evals, views, accounting): a module never imports, directly or
through others, a module that imports it back. Function-level imports count too (grimp sees
them), so a lazy import cannot hide a circle."""

from __future__ import annotations

import grimp
import pytest

PACKAGES = ("market", "domain", "store", "evals", "views", "accounting")


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph("pixiu_cli")


def circles(graph, package: str) -> list[tuple[str, str]]:
    """(module, imported) pairs of the package where `imported` leads back to `module`."""
    modules = graph.find_descendants(f"pixiu_cli.{package}") | {f"pixiu_cli.{package}"}
    return [
        (module, imported)
        for module in sorted(modules)
        for imported in sorted(graph.find_modules_directly_imported_by(module))
        if imported.startswith("pixiu_cli.") and graph.chain_exists(importer=imported, imported=module)
    ]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_of_the_package_is_in_an_import_circle(graph, package):
    assert circles(graph, package) == []


def test_the_check_finds_the_circle_the_sources_once_had(graph):
    """sources.py once imported the adapters that import it (open_source, now in source_by_name.py)."""
    graph.add_import(importer="pixiu_cli.market.sources", imported="pixiu_cli.market.akshare_source")
    try:
        found = circles(graph, "market")
    finally:
        graph.remove_import(importer="pixiu_cli.market.sources", imported="pixiu_cli.market.akshare_source")
    assert ("pixiu_cli.market.akshare_source", "pixiu_cli.market.sources") in found
    assert ("pixiu_cli.market.sources", "pixiu_cli.market.akshare_source") in found
