"""No module of pixiu_cli imports itself round a circle, directly or through others, even
inside a function: the import graph (grimp, which lint-imports builds on) has no cycle.
The layer contracts keep packages pointing one way; this keeps modules inside a package,
and the packages' __init__ files, from going round."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The strongly connected components of more than one module (Tarjan's algorithm, iterative),
# or of one module that imports itself, printed as JSON.
FIND_CYCLES = r"""
import json, sys
import grimp

graph = grimp.build_graph("pixiu_cli")
edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in sorted(graph.modules)}
index, low, on_stack, stack, cycles = {}, {}, set(), [], []
for root in edges:
    if root in index:
        continue
    work = [(root, 0)]
    while work:
        node, i = work.pop()
        if i == 0:
            index[node] = low[node] = len(index)
            stack.append(node)
            on_stack.add(node)
        if i < len(edges[node]):
            work.append((node, i + 1))
            nxt = edges[node][i]
            if nxt not in index:
                work.append((nxt, 0))
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
            continue
        for child in edges[node]:
            if child in on_stack and index[child] > index[node]:
                low[node] = min(low[node], low[child])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in edges[node]:
                cycles.append(sorted(component))
print(json.dumps(cycles))
"""


def import_cycles(root: Path) -> list[list[str]]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-c", FIND_CYCLES], cwd=root, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_no_module_imports_round_a_circle():
    assert import_cycles(ROOT) == []


def test_a_circle_through_a_function_level_import_is_found(tmp_path):
    shutil.copytree(
        ROOT / "pixiu_cli", tmp_path / "pixiu_cli", ignore=shutil.ignore_patterns("__pycache__", "_bundled")
    )
    # the REPL's turn module reaching back up to the loop that imports it
    with (tmp_path / "pixiu_cli" / "repl" / "turn.py").open("a", encoding="utf-8") as out:
        out.write("\n\ndef _probe():\n    from pixiu_cli.repl.loop import run_repl  # noqa: F401\n")
    cycles = import_cycles(tmp_path)
    assert any({"pixiu_cli.repl.loop", "pixiu_cli.repl.turn"} <= set(c) for c in cycles), cycles
