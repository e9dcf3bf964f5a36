"""Start-up time, as ratios to `python -c "import openai"` measured in the same run.

    help   `pixiu --help`, wall time of the whole process (stdout discarded)
    repl   `pixiu` in a pseudo-terminal (pexpect, PROMPT_TOOLKIT_NO_CPR=1), offline mode
           (no API key), a fresh PIXIU_HOME every start: time from spawn until the
           prompt `你 ›` is on the screen. Ctrl-D then ends it (not timed).
    chat   the same for `pixiu chat` (the explicit subcommand, parsed by typer).
    demo   the same for `pixiu chat --demo`, in a PIXIU_HOME that already holds the demo
           database (a user's second demo start; the first one, which imports the shipped
           bars, is the untimed warm-up).

All are interleaved run by run (baseline, help, repl, baseline, ...) after one
untimed warm-up round, and each figure is the median of its runs, so a noisy neighbour
slows all three alike. Goals: help ≤ 0.5 and each prompt ≤ 0.6 of the baseline.
With --before SRC, `pixiu chat --demo` is also run from the source tree SRC (e.g. an export
of an older commit) on this virtualenv, in its own home: before/after in one run. Goals are
printed, never asserted; the script exits 0.

Run:  python benchmarks/startup.py [--runs 9] [--quick] [--before SRC]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
PIXIU = str(Path(sys.executable).with_name("pixiu"))
PROMPT = "你 ›"
HELP_GOAL = 0.5
REPL_GOAL = 0.6


def clean_env(home: Path) -> dict[str, str]:
    """No key anywhere (so offline mode), an isolated home, a plain terminal."""
    # PYTHONDONTWRITEBYTECODE is dropped: an installed pixiu has its .pyc files (pip compiles
    # them, as it did openai's), so a run without them would time the compiler, not pixiu.
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("PIXIU_") and k not in ("DEEPSEEK_API_KEY", "OPENAI_API_KEY", "PYTHONDONTWRITEBYTECODE")
    }
    env.update(
        PIXIU_HOME=str(home),
        PROMPT_TOOLKIT_NO_CPR="1",
        TERM="xterm-256color",
        NO_COLOR="1",
        LANG="C.UTF-8",
        PYTHONIOENCODING="utf-8",
        COLUMNS="110",
        LINES="40",
    )
    return env


def time_baseline(env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [PYTHON, "-c", "import openai"], env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    return time.perf_counter() - started


def time_help(env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run([PIXIU, "--help"], env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


# `pixiu` run from another source tree on this virtualenv (--before SRC): before/after in one run.
FROM_SOURCE = (
    "import sys; sys.path.insert(0, sys.argv.pop(1)); sys.argv[0] = 'pixiu'; from pixiu_cli.cli import main; main()"
)


@contextmanager
def repl_child(env: dict[str, str], args: tuple[str, ...] = (), source: str | None = None, timeout: int = 30):
    """`pixiu ARGS` in a pseudo-terminal (from the source tree `source` when given), ended with
    Ctrl-D when the block is done and killed if it is still alive: every REPL benchmark's child."""
    command, argv = (PYTHON, ["-c", FROM_SOURCE, source, *args]) if source else (PIXIU, list(args))
    child = pexpect.spawn(command, argv, env=env, encoding="utf-8", timeout=timeout, dimensions=(40, 110))
    try:
        yield child
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        if child.isalive():
            child.terminate(force=True)
        child.close()


def time_repl(base: Path, run: int, args: tuple[str, ...] = (), fresh: bool = True, source: str | None = None) -> float:
    home = base / (
        f"home-{run}" if fresh else f"home-{'-'.join(args)}{'-src' if source else ''}"
    )  # fresh: created and migrated
    started = time.perf_counter()
    with repl_child(clean_env(home), args, source) as child:
        child.expect_exact(PROMPT)
        elapsed = time.perf_counter() - started
    if fresh:
        shutil.rmtree(home, ignore_errors=True)
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=9, help="timed runs of each (default 9)")
    parser.add_argument("--quick", action="store_true", help="one run of each, no warm-up (a smoke test)")
    parser.add_argument("--before", metavar="SRC", help="also time `pixiu chat --demo` from this source tree")
    args = parser.parse_args(argv)
    runs = 1 if args.quick else max(1, args.runs)

    times: dict[str, list[float]] = {"baseline": [], "help": [], "repl": [], "chat": [], "demo": []}
    with tempfile.TemporaryDirectory(prefix="pixiu-startup-") as tmp:
        base = Path(tmp)
        env = clean_env(base / "home-help")
        if not args.quick:  # warm the page cache and the .pyc files; not counted
            time_baseline(env), time_help(env), time_repl(base, -1)
        time_repl(base, -1, ("chat", "--demo"), fresh=False)  # imports the demo bars once; not counted
        before = str(Path(args.before).resolve()) if args.before else None
        if before:
            times["before"] = []
            time_repl(base, -1, ("chat", "--demo"), fresh=False, source=before)
        for run in range(runs):
            times["baseline"].append(time_baseline(env))
            times["help"].append(time_help(env))
            times["repl"].append(time_repl(base, run))
            times["chat"].append(time_repl(base, run, ("chat",)))
            times["demo"].append(time_repl(base, run, ("chat", "--demo"), fresh=False))
            if before:
                times["before"].append(time_repl(base, run, ("chat", "--demo"), fresh=False, source=before))

    med = {k: statistics.median(v) * 1000 for k, v in times.items()}
    spread = {k: (min(v) * 1000, max(v) * 1000) for k, v in times.items()}

    def line(name: str, what: str, goal: float | None) -> str:
        lo, hi = spread[name]
        text = f"{name:<9}{what:<40}median {med[name]:7.1f} ms  (min {lo:.1f}, max {hi:.1f}, n={runs})"
        if goal is None:
            return text
        ratio = med[name] / med["baseline"]
        verdict = "OK" if ratio <= goal else "MISSED"
        return f"{text}  ratio {ratio:.2f}  goal <= {goal:.2f}  {verdict}"

    print(line("baseline", 'python -c "import openai"', None))
    print(line("help", "pixiu --help", HELP_GOAL))
    print(line("repl", "pixiu -> prompt ready (pty, offline)", REPL_GOAL))
    print(line("chat", "pixiu chat -> prompt ready", REPL_GOAL))
    print(line("demo", "pixiu chat --demo -> prompt ready", REPL_GOAL))
    if "before" in times:
        print(line("before", "the same, from --before SRC", REPL_GOAL))
    return 0


if __name__ == "__main__":
    sys.exit(main())
