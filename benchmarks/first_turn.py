"""REPL: the first turn against later turns, Enter to status line, offline, in a pty.

`pixiu` starts in a pseudo-terminal (pexpect, PROMPT_TOOLKIT_NO_CPR=1) with no API key (offline
mode: the in-process offline server answers) and a fresh PIXIU_HOME. After the prompt is on
the screen the script waits --settle seconds (a user reads the banner and types), then
sends a question and times from Enter until the status line (`缓存命中`) appears; then the
next question, --turns in all. The figure is the first turn against the median of the later
turns, per start, the median over --runs starts. Goal: first ≤ 1.3× a later turn. Printed,
never asserted.

With --before SRC the same is timed for `pixiu` run from the source tree SRC (an export of
an older commit) on this virtualenv, each start of it right after one of this tree's.

Run:  python benchmarks/first_turn.py [--runs 3] [--turns 4] [--settle 1.0] [--before SRC]
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
from startup import PROMPT, clean_env, repl_child  # noqa: E402

GOAL = 1.3
QUESTIONS = ["茅台最近怎么样", "我的持仓哪只适合核心仓", "什么是市盈率", "宁德时代估值贵吗", "卫星仓超过35%了怎么调"]
STATUS = "缓存命中"


def one_start(base: Path, run: int, turns: int, settle: float, source: str | None = None) -> list[float]:
    home = base / f"home-{run}{'-before' if source else ''}"
    # a cache of each tree's own: an older tree's cached tables may be of another format
    # under the same file name, and each would rebuild the other's
    env = {**clean_env(home), "XDG_CACHE_HOME": str(base / ("cache-before" if source else "cache"))}
    times = []
    with repl_child(env, source=source, timeout=60) as child:
        child.expect_exact(PROMPT)
        time.sleep(settle)
        for turn in range(turns):
            child.send(QUESTIONS[turn % len(QUESTIONS)])
            time.sleep(0.2)  # the line is typed; only Enter is timed
            started = time.perf_counter()
            child.send("\r")
            child.expect_exact(STATUS)
            times.append(time.perf_counter() - started)
            child.expect_exact(PROMPT)
            time.sleep(0.3)
    shutil.rmtree(home, ignore_errors=True)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--turns", type=int, default=4)
    parser.add_argument("--settle", type=float, default=2.0, help="seconds between the prompt and the first question")
    parser.add_argument("--before", metavar="SRC", help="also time `pixiu` from this source tree")
    args = parser.parse_args(argv)
    sources = {"pixiu": None, **({"before": str(Path(args.before).resolve())} if args.before else {})}
    firsts: dict[str, list[float]] = {name: [] for name in sources}
    laters: dict[str, list[float]] = {name: [] for name in sources}
    with tempfile.TemporaryDirectory(prefix="pixiu-first-turn-") as tmp:
        for run in range(max(1, args.runs)):
            for name, source in sources.items():
                times = one_start(Path(tmp), run, max(2, args.turns), args.settle, source)
                firsts[name].append(times[0] * 1000)
                laters[name].append(statistics.median(times[1:]) * 1000)
    for name in sources:
        first, later = statistics.median(firsts[name]), statistics.median(laters[name])
        ratio = first / later
        print(f"{name:<7}first turn   median {first:7.1f} ms  (runs {', '.join(f'{t:.0f}' for t in firsts[name])})")
        print(f"{name:<7}later turns  median {later:7.1f} ms  (runs {', '.join(f'{t:.0f}' for t in laters[name])})")
        print(f"{name:<7}ratio {ratio:.2f}  goal <= {GOAL:.2f}  {'OK' if ratio <= GOAL else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
