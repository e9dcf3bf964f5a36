"""REPL: resident memory after questions that need the word segmenter, offline, in a pty.

`pixiu` starts in a pseudo-terminal (pexpect, PROMPT_TOOLKIT_NO_CPR=1) with no API key (offline
mode: the in-process offline server answers), a fresh PIXIU_HOME and a user cache that already
holds what pixiu derives once (a first start fills it). Once the prompt is up the script waits
--settle seconds (the warm-up runs), then asks the questions below, the first of which needs
word boundaries (其他的 is 其他 + 的), each to its status line (`缓存命中`), and reads the
process's VmRSS and VmHWM (its peak) from /proc. The figure is the median over --runs starts.
Goal: RSS ≤ 100 MiB. Printed, never asserted.

With --before SRC the same is measured for `pixiu` run from the source tree SRC (an export of
an older commit) on this virtualenv, each start of it right after one of this tree's.

Run:  python benchmarks/repl_memory.py [--runs 3] [--settle 2] [--before SRC]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from first_turn import STATUS  # noqa: E402
from startup import PROMPT, clean_env, repl_child  # noqa: E402

GOAL_MIB = 100
QUESTIONS = ["其他的票都绿了，我该怎么办", "我家仓库旁边那只心灵美的票呢", "茅台最近怎么样"]


def _status_kib(pid: int) -> dict[str, int]:
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                fields[name] = int(value.split()[0])
    return fields


def one_start(base: Path, run: int, settle: float, source: str | None = None) -> dict[str, int]:
    home = base / f"home-{run}{'-before' if source else ''}"
    cache = base / f"cache{'-before' if source else ''}"
    env = {**clean_env(home), "XDG_CACHE_HOME": str(cache)}
    with repl_child(env, source=source, timeout=60) as child:
        child.expect_exact(PROMPT)
        time.sleep(settle)
        for question in QUESTIONS:
            child.send(question + "\r")
            child.expect_exact(STATUS)
            child.expect_exact(PROMPT)
        time.sleep(0.3)
        measured = _status_kib(child.pid)
    shutil.rmtree(home, ignore_errors=True)
    return measured


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--settle", type=float, default=2.0, help="seconds between the prompt and the first question")
    parser.add_argument("--before", metavar="SRC", help="also measure `pixiu` from this source tree")
    args = parser.parse_args(argv)
    sources = {"pixiu": None, **({"before": str(Path(args.before).resolve())} if args.before else {})}
    samples: dict[str, list[dict[str, int]]] = {name: [] for name in sources}
    with tempfile.TemporaryDirectory(prefix="pixiu-repl-memory-") as tmp:
        for source in sources.values():  # fills each tree's user cache, as a first start does
            one_start(Path(tmp), -1, args.settle, source)
        for run in range(max(1, args.runs)):
            for name, source in sources.items():
                samples[name].append(one_start(Path(tmp), run, args.settle, source))
    for name in sources:
        rss = statistics.median(s["VmRSS"] for s in samples[name]) / 1024
        peak = statistics.median(s["VmHWM"] for s in samples[name]) / 1024
        runs = ", ".join(f"{s['VmRSS'] / 1024:.0f}" for s in samples[name])
        verdict = "OK" if rss <= GOAL_MIB else "MISSED"
        print(f"{name:<7}RSS median {rss:6.1f} MiB  peak {peak:6.1f} MiB  (runs {runs})  goal <= {GOAL_MIB}  {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
