"""REPL: the first turn against later turns, Enter to status line, offline, in a pty.

`pixiu` starts in a pseudo-terminal (pexpect, PROMPT_TOOLKIT_NO_CPR=1) with no API key (offline
mode: the in-process offline server answers) and a fresh PIXIU_HOME. After the prompt is on
the screen the script waits --settle seconds (a user reads the banner and types), then
sends a question and times from Enter until the status line (`缓存命中`) appears; then the
next question, --turns in all. The figure is the first turn against the median of the later
turns, per start, the median over --runs starts. Goal: first ≤ 1.5× a later turn. Printed,
never asserted.

Run:  python benchmarks/first_turn.py [--runs 3] [--turns 4] [--settle 1.0]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pexpect

sys.path.insert(0, str(Path(__file__).resolve().parent))
from startup import PIXIU, PROMPT, clean_env  # noqa: E402

GOAL = 1.5
QUESTIONS = ["茅台最近怎么样", "我的持仓哪只适合核心仓", "什么是市盈率", "宁德时代估值贵吗", "卫星仓超过35%了怎么调"]
STATUS = "缓存命中"


def one_start(base: Path, run: int, turns: int, settle: float) -> list[float]:
    home = base / f"home-{run}"
    child = pexpect.spawn(PIXIU, [], env=clean_env(home), encoding="utf-8", timeout=60, dimensions=(40, 110))
    times = []
    try:
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
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        if child.isalive():
            child.terminate(force=True)
        child.close()
    shutil.rmtree(home, ignore_errors=True)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--turns", type=int, default=4)
    parser.add_argument("--settle", type=float, default=2.0, help="seconds between the prompt and the first question")
    args = parser.parse_args(argv)
    firsts, laters = [], []
    with tempfile.TemporaryDirectory(prefix="pixiu-first-turn-") as tmp:
        for run in range(max(1, args.runs)):
            times = one_start(Path(tmp), run, max(2, args.turns), args.settle)
            firsts.append(times[0] * 1000)
            laters.append(statistics.median(times[1:]) * 1000)
    first, later = statistics.median(firsts), statistics.median(laters)
    ratio = first / later
    print(f"first turn   median {first:7.1f} ms  (runs {', '.join(f'{t:.0f}' for t in firsts)})")
    print(f"later turns  median {later:7.1f} ms  (runs {', '.join(f'{t:.0f}' for t in laters)})")
    print(f"ratio {ratio:.2f}  goal <= {GOAL:.2f}  {'OK' if ratio <= GOAL else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
