"""docs/architecture.md says what the code is: its layer picture is the top import contract in
pyproject.toml, top to bottom, and every use case it lists is where it says, a module that
exists holding the names it gives; every use-case module is listed."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

from tests.helpers import USE_CASE_MODULES

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"


def _spaced(layer: str) -> str:
    """`a|b` and `a : b` written one way: `a | b`, `a : b`."""
    for mark in ("|", ":"):
        layer = f" {mark} ".join(part.strip() for part in layer.split(mark))
    return layer


def contract_layers(pyproject: str) -> list[str]:
    """The layers of the top layers contract (the package's, `containers = ["pixiu_cli"]`),
    top to bottom."""
    contracts = tomllib.loads(pyproject)["tool"]["importlinter"]["contracts"]
    (layered,) = [c for c in contracts if c["type"] == "layers" and c.get("containers") == ["pixiu_cli"]]
    return [_spaced(layer) for layer in layered["layers"]]


def pictured_layers(doc: str) -> list[str]:
    """The first column of the text block under `## Layers` (a column ends at two spaces)."""
    section = doc.split("\n## Layers\n", 1)[1]
    block = re.search(r"```text\n(.*?)```", section, re.S).group(1)
    return [_spaced(re.split(r"\s{2,}", line.strip())[0]) for line in block.splitlines()]


def table_rows(doc: str, heading: str) -> list[list[str]]:
    """The rows of the Markdown tables that follow `heading`, up to the next heading, as cells."""
    section = doc.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line.strip().strip("|").split("|") for line in section.splitlines() if line.startswith("|")]
    return [[c.strip() for c in row] for row in rows if not set(row[0].strip()) <= {"-", " "}]


def ticked(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def top_level_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def listed_use_cases(doc: str) -> list[tuple[str, str, list[str]]]:
    """(use case, module path, names) of the use-case table (the one with a `function` column)."""
    rows = table_rows(doc, "Use cases")
    return [(r[0], ticked(r[1])[0], ticked(r[2])) for r in rows if len(r) == 4 and r[0] != "use case"]


def missing(doc: str) -> list[str]:
    """Each listed module or name that is not in the code."""
    gaps = []
    for use_case, module, names in listed_use_cases(doc):
        path = ROOT / module
        if not path.is_file():
            gaps.append(f"{use_case}: no {module}")
            continue
        defined = top_level_names(path)
        gaps += [f"{use_case}: {module} has no {name}" for name in names if name not in defined]
    return gaps


def test_the_layer_picture_is_the_import_contract():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert pictured_layers(DOC.read_text(encoding="utf-8")) == contract_layers(pyproject)


AREAS = "brief : conversation : home : memory : account : market"


def test_the_areas_sit_between_the_composition_root_and_the_kernel():
    layers = contract_layers((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert layers.index("app") + 1 == layers.index(AREAS) == layers.index("kernel") - 1
    assert {p.name for p in (ROOT / "pixiu_cli").iterdir() if (p / "__init__.py").exists()} >= set(AREAS.split(" : "))


def test_every_listed_use_case_is_in_the_module_the_doc_names():
    doc = DOC.read_text(encoding="utf-8")
    assert {"ask", "retry", "brief"} <= {n for _, m, names in listed_use_cases(doc) for n in names}
    assert missing(doc) == []


def test_every_use_case_module_is_listed():
    doc = DOC.read_text(encoding="utf-8")
    listed = {m for row in table_rows(doc, "Use cases") for m in ticked(row[1]) if m.endswith(".py")}
    assert sorted({f"pixiu_cli/{m}" for m in USE_CASE_MODULES} - listed) == []


def test_a_changed_contract_or_a_renamed_use_case_is_caught():
    """The checks above can fail: a layer moved in the contract, a function renamed."""
    doc = DOC.read_text(encoding="utf-8")
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    moved = pyproject.replace('  "app",\n  "brief : conversation', '  "brief : conversation').replace(
        '  "kernel",\n]', '  "app",\n  "kernel",\n]', 1
    )
    assert moved != pyproject and pictured_layers(doc) != contract_layers(moved)
    renamed = doc.replace("| `ask` |", "| `ask_question` |")
    assert renamed != doc and missing(renamed) == ["ask a question: pixiu_cli/conversation/ask.py has no ask_question"]
