"""What each one-shot command loads: pixiu modules, all modules, how often it reads the
settings, and the import time, against `pixiu --help` as the baseline.

Each command runs in a fresh process, offline (no key), in a PIXIU_HOME that first had a
broker statement imported (so `holdings`, `cash` and `alert list` have something to show),
with PIXIU_NOW pinned. Two runs per command: one counting the modules left in sys.modules at
exit and the calls of `load_settings`, one under `-X importtime` summing every module's own
import time (so the figure is import work only, not the command's). The bounds that can only
go down are in tests/perf/test_command_modules.py, which uses the same `measure`.

Run:  python benchmarks/command_modules.py [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STATEMENT = ROOT / "tests" / "fixtures" / "statements" / "ths_jiaogedan.csv"
PINNED = "2026-11-24T16:00:00+08:00"

COMMANDS: dict[str, tuple[str, ...]] = {
    "--help": ("--help",),
    "holdings": ("holdings",),
    "trades import FILE": ("trades", "import", str(STATEMENT), "--dry-run"),
    "trades": ("trades",),
    "cash": ("cash",),
    "alert list": ("alert", "list"),
    "memory list": ("memory", "list"),
    "sessions": ("sessions",),
    "config show": ("config", "show"),
    "data status": ("data", "status"),
    "context TEXT": ("context", "茅台最近怎么样"),
    "ask": ("ask", "--json", "茅台最近怎么样"),
}

# Third-party packages a one-shot command should load only when it uses them.
HEAVY = (
    "numpy",
    "pandas",
    "openai",
    "prompt_toolkit",
    "rich",
    "jieba",
    "pixiu_cli.conversation.agent",
    "typer",
    "sqlite_utils",
)

# Run as `python -c`: count at exit what the command left loaded, and the settings it read.
_PROBE = """\
import sys, atexit
calls = []
def watch(frame, event, arg):
    code = frame.f_code
    if event == "call" and code.co_name == "load_settings" and code.co_filename.endswith("settings.py"):
        calls.append(1)
sys.setprofile(watch)
def report():
    sys.setprofile(None)
    mods = [m for m in sys.modules if m == "pixiu_cli" or m.startswith("pixiu_cli.")]
    heavy = [m for m in {heavy!r} if m in sys.modules]
    print("PROBE", len(mods), len(sys.modules), len(calls), *heavy, file=sys.stderr)
atexit.register(report)
sys.argv = {argv!r}
from pixiu_cli.cli import main
main()
"""


def env_for(home: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("PIXIU_") and k not in ("DEEPSEEK_API_KEY", "OPENAI_API_KEY")
    }
    env.update(PIXIU_HOME=str(home), PIXIU_NOW=PINNED, NO_COLOR="1", LANG="C.UTF-8", PYTHONIOENCODING="utf-8")
    # The home's own cache: a name table depends on the home's stocks, and a shared cache keeps
    # only a few tables, so other runs (parallel tests) could evict this one between the warm-up
    # ask and the measurement, which would then count the table's build as a repeat's
    env["XDG_CACHE_HOME"] = str(home.parent / "cache")
    return env


def prepared_home(root: Path, *, asked: bool = True) -> Path:
    """A home with one statement imported and (`asked`) the first `ask` done (its one-off
    work: the tokenizer counting the block's lines), so each command is measured as a user's
    repeat."""
    home = root / "home"
    home.mkdir()
    env = env_for(home)
    done = (("trades", "import", str(STATEMENT)), ("ask", "--json", "茅台最近怎么样"))
    for argv in done if asked else done[:1]:
        subprocess.run(
            [sys.executable, "-m", "pixiu_cli", *argv], env=env, capture_output=True, check=True, timeout=300
        )
    return home


def measure(home: Path, argv: tuple[str, ...]) -> tuple[int, int, int, set[str]]:
    """(pixiu modules, all modules, load_settings calls, the HEAVY ones loaded) at the exit of
    `pixiu argv`."""
    script = _PROBE.format(argv=["pixiu", *argv], heavy=HEAVY)
    done = subprocess.run(
        [sys.executable, "-c", script], env=env_for(home), capture_output=True, text=True, timeout=300
    )
    line = next((x for x in done.stderr.splitlines() if x.startswith("PROBE")), None)
    if done.returncode != 0 or line is None:
        raise RuntimeError(f"pixiu {' '.join(argv)} failed ({done.returncode}): {done.stderr[-2000:]}")
    pixiu, every, loads, *heavy = line.split()[1:]
    return int(pixiu), int(every), int(loads), set(heavy)


_IMPORTTIME = re.compile(r"import time:\s+(\d+) \|")


def import_ms(home: Path, argv: tuple[str, ...]) -> float:
    """The sum of every module's own import time (ms) for `pixiu argv`."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "pixiu_cli", *argv],
        env=env_for(home),
        capture_output=True,
        text=True,
        timeout=300,
    )
    return sum(int(m.group(1)) for m in _IMPORTTIME.finditer(done.stderr)) / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="import-time runs per command (median)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = prepared_home(Path(tmp))
        rows = []
        for name, argv in COMMANDS.items():
            pixiu, every, loads, heavy = measure(home, argv)
            ms = statistics.median(import_ms(home, argv) for _ in range(args.runs))
            rows.append((name, pixiu, every, loads, ms, heavy))
    base = rows[0]
    print(f"{'command':<22}{'pixiu':>7}{'all':>7}{'settings':>10}{'import ms':>11}{'× --help':>10}  heavy")
    for name, pixiu, every, loads, ms, heavy in rows:
        shown = " ".join(sorted(heavy)) or "-"
        print(f"{name:<22}{pixiu:>7}{every:>7}{loads:>10}{ms:>11.0f}{ms / base[4]:>10.1f}  {shown}")


if __name__ == "__main__":
    main()
