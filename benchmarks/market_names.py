"""The block build and the process start with every listed stock's name known, against the
code before the shipped security list fed the name matcher.

Two source trees run the same measurements, each in its own child processes on this
virtualenv: this checkout, and `--against REF` (default `BEFORE`, exported with
`git archive`; or `--before SRC`, a tree already on disk). Each child opens a fresh home
(an empty database: what `PIXIU_HOME=$(mktemp -d) pixiu context TEXT` sees) and times

    table   the process's first name table (`builder.names.table`, CPU time): the list
            is read and the automaton built here;
    first   then the first `ContextBuilder.selected_block(TEXT)` (select + assemble:
            the tokenizer and the rules load here);
    warm    the same call again, median of --reps (the table is reused while the
            master and the holdings do not change).

and, as whole processes (median of --runs, interleaved between the trees):

    context `python -m pixiu_cli context TEXT` in a fresh home, CPU time (user + system)
    ask     `python -m pixiu_cli ask --offline TEXT`, the same.

Printed: each figure for both trees and their ratio (this tree / the other). Goals are
not asserted (2 shared cores): the block build and the process start should stay within
a few milliseconds of the old figures while naming 5,448 more stocks.

Run:  python benchmarks/market_names.py [--against REF | --before SRC] [--runs 5] [--reps 30] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEFORE = "276cdc4"  # main before the shipped list fed the name matcher (issue 23)
QUESTIONS = ("宁德时代能买吗", "比亚迪怎么样", "我的持仓整体风险大吗", "600519最近怎么样")


def _cpu_ms(fn) -> float:
    started = time.process_time()
    fn()
    return (time.process_time() - started) * 1000


def measure_in_process(reps: int) -> dict:
    """Run inside a child whose sys.path starts with the tree being measured."""
    from datetime import datetime

    from pixiu_cli.conversation.context.builder import ContextBuilder
    from pixiu_cli.conversation.context.memory_classes import MemoryLimits
    from pixiu_cli.conversation.store import ConversationStore
    from pixiu_cli.home.store import InvestorStore
    from pixiu_cli.kernel.store.database import open_database
    from pixiu_cli.market.calendar import SHANGHAI

    now = datetime(2026, 11, 24, 10, 15, tzinfo=SHANGHAI)
    with tempfile.TemporaryDirectory(prefix="pixiu-names-") as home:
        db = open_database(Path(home) / "pixiu.db")
        try:
            builder = ContextBuilder(ConversationStore(db), InvestorStore(db), MemoryLimits())
            table = _cpu_ms(lambda: builder.names.table(builder.domain.holdings()))
            first = _cpu_ms(lambda: builder.selected_block(QUESTIONS[0], now=now))
            symbols = {q: builder.selected_block(q, now=now)[1].symbols for q in QUESTIONS}
            warm = {
                q: statistics.median(_cpu_ms(lambda q=q: builder.selected_block(q, now=now)) for _ in range(reps))
                for q in QUESTIONS
            }
        finally:
            db.close()
    return {"table": table, "first": first, "warm": warm, "symbols": symbols}


def _child_env(tree: Path, home: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIXIU_") and not k.endswith("_API_KEY")}
    env.update({"PYTHONPATH": str(tree), "PIXIU_HOME": home, "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"})
    return env


def in_child(tree: Path, reps: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="pixiu-names-home-") as home:
        done = subprocess.run(
            [sys.executable, __file__, "--measure", "--reps", str(reps)],
            cwd=tree,
            env=_child_env(tree, home),
            capture_output=True,
            text=True,
            timeout=300,
        )
    if done.returncode != 0:
        raise SystemExit(f"measuring {tree} failed: {done.stderr.strip()[-400:]}")
    return json.loads(done.stdout)


def process_cpu_ms(tree: Path, args: list[str]) -> float:
    """CPU time (user + system) of one `python -m pixiu_cli ARGS` in a fresh home."""
    with tempfile.TemporaryDirectory(prefix="pixiu-names-home-") as home:
        proc = subprocess.Popen(
            [sys.executable, "-m", "pixiu_cli", *args],
            cwd=tree,
            env=_child_env(tree, home),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise SystemExit(f"pixiu {' '.join(args)} in {tree} failed: {proc.stderr.read().decode()[-300:]}")
        proc.stderr.close()
    return (usage.ru_utime + usage.ru_stime) * 1000


def export(ref: str, into: Path) -> Path:
    archive = into / "tree.tar"
    with archive.open("wb") as handle:
        subprocess.run(["git", "archive", ref, "pixiu_cli", "data", "prompts"], cwd=ROOT, stdout=handle, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into / "tree", filter="data")
    return into / "tree"


def _ratio(now: float, before: float) -> str:
    return f"{now / before:5.2f}" if before > 0 else "  n/a"


def report(trees: dict[str, Path], runs: int, reps: int) -> list[str]:
    blocks = {label: [in_child(tree, reps) for _ in range(runs)] for label, tree in trees.items()}
    processes: dict[str, dict[str, list[float]]] = {label: {"context": [], "ask": []} for label in trees}
    for _ in range(runs):  # interleaved: the machine's load falls on both trees alike
        for label, tree in trees.items():
            processes[label]["context"].append(process_cpu_ms(tree, ["context", QUESTIONS[0]]))
            processes[label]["ask"].append(process_cpu_ms(tree, ["ask", "--offline", QUESTIONS[0]]))
    now, before = "this tree", "before"
    out = []
    for key, what in (("table", "name table, first build   "), ("first", "first block build after it")):
        cpu = {label: statistics.median(run[key] for run in blocks[label]) for label in trees}
        out.append(
            f"{key:<9} {what}  {cpu[now]:7.2f} ms CPU  before {cpu[before]:7.2f} ms  ratio {_ratio(cpu[now], cpu[before])}"
        )
    for question in QUESTIONS:
        warm = {label: statistics.median(run["warm"][question] for run in blocks[label]) for label in trees}
        named = {label: blocks[label][0]["symbols"][question] for label in trees}
        out.append(
            f"warm      {question:<12} {warm[now]:7.2f} ms CPU  before {warm[before]:7.2f} ms  "
            f"ratio {_ratio(warm[now], warm[before])}  symbols {named[now] or '[]'} (before {named[before] or '[]'})"
        )
    for kind in ("context", "ask"):
        cpu = {label: statistics.median(processes[label][kind]) for label in trees}
        out.append(
            f"process   pixiu {kind:<8}            {cpu[now]:7.1f} ms CPU  before {cpu[before]:7.1f} ms  "
            f"ratio {_ratio(cpu[now], cpu[before])}  (median of {runs})"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--against", default=BEFORE, help="git ref of the code to compare with")
    parser.add_argument("--before", type=Path, help="a source tree on disk instead of --against")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--quick", action="store_true", help="one run, three repetitions")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)  # the child's side
    args = parser.parse_args(argv)
    if args.measure:
        print(json.dumps(measure_in_process(args.reps), ensure_ascii=False))
        return 0
    runs, reps = (1, 3) if args.quick else (max(1, args.runs), max(3, args.reps))
    with tempfile.TemporaryDirectory(prefix="pixiu-names-before-") as tmp:
        before = args.before or export(args.against, Path(tmp))
        label = str(args.before) if args.before else args.against
        print(f"trees     this tree {ROOT}  before {label}  ({runs} runs, {reps} repetitions)")
        for line in report({"this tree": ROOT, "before": before}, runs, reps):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
