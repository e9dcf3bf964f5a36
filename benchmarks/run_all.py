"""Every benchmark behind the figures in docs/benchmarks.md, one after another, in one command.

Each script measures its own baseline in the same run and prints its ratios; this runner only
starts them in turn (each in its own process, so one's imports and caches do not help the
next), shows their output as it comes, and ends with how long each took and which failed.

    python benchmarks/run_all.py              # every row, the scripts' own run counts
    python benchmarks/run_all.py --quick      # one tiny run of each: does every script still run?
    python benchmarks/run_all.py --only stream_render,unchanged_work

Rows that need a baseline installed apart (ask_process's `llm`, from a clean virtualenv of its
own named by $PIXIU_BENCH_LLM) are skipped with a line saying why when it is missing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Row:
    script: str
    args: tuple[str, ...] = ()
    quick: tuple[str, ...] = ("--quick",)  # added to args for --quick
    needs: str | None = None  # an environment variable naming a program the script cannot run without


# In the order of issue 42's table: where the user waits first, then the work that changed nothing.
ROWS = (
    Row("ask_process.py", needs="PIXIU_BENCH_LLM"),
    Row("ask_process.py", ("--new-question",), needs="PIXIU_BENCH_LLM"),
    Row("startup.py"),
    Row("user_paths.py", ("--only", "context")),
    Row("first_turn.py", ("--settle", "0.3"), ("--runs", "1", "--turns", "3")),
    Row("first_turn.py", ("--settle", "2"), ("--runs", "1", "--turns", "3")),
    Row("stream_render.py", quick=("--runs", "1")),
    Row("unchanged_work.py"),
    Row("statement_scale.py", quick=("--rows", "2000", "--reps", "1")),
    Row("statement_floor.py"),
    Row("performance.py"),
    Row("huge_reply_turn.py"),
    Row("store_growth.py"),
    Row("repl_memory.py", quick=("--runs", "1")),
    Row("segmenter_cost.py", quick=("--reps", "1")),
    Row("command_modules.py", quick=("--runs", "1")),
    Row("user_paths.py", ("--only", "cache")),
    Row("user_paths.py", ("--only", "profile")),
)


def run(row: Row, quick: bool) -> tuple[str, float, int | None]:
    name = " ".join((row.script, *row.args))
    if not (HERE / row.script).exists():
        print(f"\n## {name}: no such script here, skipped", flush=True)
        return name, 0.0, None
    if row.needs and not os.environ.get(row.needs):
        print(f"\n## {name}: skipped, ${row.needs} is not set (see the script's docstring)", flush=True)
        return name, 0.0, None
    print(f"\n## {name}", flush=True)
    started = time.monotonic()
    code = subprocess.call([sys.executable, str(HERE / row.script), *row.args, *(row.quick if quick else ())])
    return name, time.monotonic() - started, code


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one tiny run of each script")
    parser.add_argument("--only", default="", help="comma-separated script names (without .py)")
    args = parser.parse_args()
    chosen = {name.strip().removesuffix(".py") for name in args.only.split(",") if name.strip()}
    rows = [row for row in ROWS if not chosen or row.script.removesuffix(".py") in chosen]
    results = [run(row, args.quick) for row in rows]
    print("\n## summary")
    for name, seconds, code in results:
        status = "skipped" if code is None else ("ok" if code == 0 else f"exit {code}")
        print(f"{name:<42} {seconds:8.1f} s  {status}")
    return 1 if any(code not in (0, None) for _, _, code in results) else 0


if __name__ == "__main__":
    sys.exit(main())
