"""Imports point one way: the import-linter contracts in pyproject.toml hold, and they catch
the kinds of breakage they exist for, including an import hidden inside a function (the
way store → tokens → llm → store once hid a cycle)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    """`lint-imports` over the pixiu_cli package found in `root`, with `root`'s contracts."""
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-c", LINT, "--no-cache", str(root / "pyproject.toml")],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )


def test_only_the_areas_are_siblings_that_may_import_each_other():
    """`:` joins layers that may import each other: only the areas (each may call another's use
    cases); tests/test_import_cycles.py keeps their modules free of circles. Every other layer
    joins its siblings with `|`."""
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"][
        "contracts"
    ]
    layered = [c for c in contracts if c["type"] == "layers"]
    assert layered, "no layers contract"
    joined = [layer for c in layered for layer in c["layers"] if ":" in layer]
    assert joined == ["brief : conversation : home : memory : account : market"]
    assert any("|" in layer for c in layered for layer in c["layers"])  # siblings are still declared


def test_the_import_contracts_hold():
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


@pytest.fixture
def copy(tmp_path) -> Path:
    skip = shutil.ignore_patterns("__pycache__", "_bundled")
    shutil.copytree(ROOT / "pixiu_cli", tmp_path / "pixiu_cli", ignore=skip)
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


PROBE = "\n\ndef _layer_probe():\n    from {module} import {name}  # noqa: F401\n"
BREAKS = {
    "the kernel imports an area inside a function": (
        "kernel/store/rows.py",
        "pixiu_cli.account.ledger",
        "derive",
        "pixiu_cli.kernel is not allowed to import pixiu_cli.account",
    ),
    "an area imports the composition root": (
        "market/trading_days.py",
        "pixiu_cli.app",
        "open_app",
        "pixiu_cli.market is not allowed to import pixiu_cli.app",
    ),
    "an area imports a surface": (
        "memory/notes.py",
        "pixiu_cli.repl.state",
        "ReplState",
        "pixiu_cli.memory is not allowed to import pixiu_cli.repl",
    ),
    "the REPL imports the command line's root": (
        "repl/state.py",
        "pixiu_cli.cli.root",
        "root",
        "pixiu_cli.repl is not allowed to import pixiu_cli.cli",
    ),
    "an area reaches another's store": (
        "brief/facts.py",
        "pixiu_cli.memory.store",
        "MemoryStore",
        "pixiu_cli.brief.facts -> pixiu_cli.memory.store",
    ),
    "the offline server imports context": (
        "conversation/offline/cache.py",
        "pixiu_cli.conversation.context.block",
        "CONTEXT_OPEN",
        "pixiu_cli.conversation.offline.cache -> pixiu_cli.conversation.context.block",
    ),
    "a second module imports openai": (
        "conversation/agent/tools.py",
        "openai",
        "OpenAI",
        "pixiu_cli.conversation.agent.tools -> openai",
    ),
}


# Each case is a `lint-imports` process over a copy of the package: the fast subset keeps the
# first (an import hidden inside a function); the whole suite runs every one.
@pytest.mark.parametrize(
    "case",
    [pytest.param(case, marks=[pytest.mark.slow] if i else []) for i, case in enumerate(BREAKS)],
    ids=list(BREAKS),
)
def test_a_function_level_import_against_the_layers_fails(copy, case):
    path, module, name, message = BREAKS[case]
    with (copy / "pixiu_cli" / path).open("a", encoding="utf-8") as out:
        out.write(PROBE.format(module=module, name=name))
    done = lint_imports(copy)
    assert done.returncode != 0
    assert message in done.stdout, done.stdout + done.stderr


@pytest.mark.slow
def test_a_new_top_level_module_must_be_given_a_layer(copy):
    (copy / "pixiu_cli" / "unplaced.py").write_text('"""Not yet in any layer."""\n', encoding="utf-8")
    done = lint_imports(copy)
    assert done.returncode != 0
    assert "pixiu_cli.unplaced" in done.stdout and "not listed as layers" in done.stdout
