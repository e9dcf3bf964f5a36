"""`pixiu ask` as a whole process against `llm -m` and a one-shot script on the bare openai SDK.

One offline server (`OfflineServer(cache_profile="deepseek")`) runs in a child process (so
this process stays small: a child's peak RSS starts from its parent's at fork). Each
run starts, on that server, the same question as

    llm       `llm -m pixiu-bench --key KEY TEXT` (simonw/llm) from a virtualenv of its own, as
              its users install it: `python3 -m venv V && V/bin/pip install llm==0.36`, then
              --llm V/bin/llm (or PIXIU_BENCH_LLM=V/bin/llm). Not the `llm` of this virtualenv:
              pixiu's test extra (pandas and more) would slow llm's plugin scan and imports,
              and the baseline would look slower than what llm's users run. An
              `extra-openai-models.yaml` in a temporary LLM_USER_PATH registers the server as
              an OpenAI-compatible model; llm streams the reply and logs it to its own SQLite
              database (its defaults). The issue's baseline.
    raw       `python -c` a script that imports openai, streams one chat completion of
              the same question and prints it (what a minimal one-shot client does).
    ask       `pixiu ask TEXT` with PIXIU_BASE_URL pointing at the server and a key set (as
              with a real provider), in a PIXIU_HOME prepared once (demo-free, empty). Also
              as its users install it: --pixiu P/bin/pixiu (or PIXIU_BENCH_PIXIU) from
              `python3 -m venv P && P/bin/pip install -e .`, without the test extra: with
              pandas installed, sqlite-utils imports it (~0.3 s of CPU, ~40 MiB) in every
              process that opens a database. Default: this virtualenv's pixiu;
    json      `pixiu ask --json TEXT`, the same home.
    before    with --before SRC: `pixiu ask TEXT` run from the source tree SRC (e.g. an
              export of an older commit) on the interpreter of that pixiu: before/after in
              one run.

Wall time per process (median of --runs, interleaved), its CPU time (user + system; less
sensitive than wall time to a loaded machine) and peak RSS (ru_maxrss of that child, via
os.wait4). Ratios are to llm (and to raw). Goals: ask ≤ 1.0× llm's CPU time and ≤ its
peak RSS. Printed, never asserted. Without llm installed its column is skipped and the
goal is checked against raw. --new-question asks a question no run asked before in every
timed run (each client gets the same one), so pixiu counts a new line, as a user's asks do.

Run:  python benchmarks/ask_process.py --llm V/bin/llm --pixiu P/bin/pixiu [--runs 7] [--before SRC] [--new-question] [--quick]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from startup import FROM_SOURCE, PIXIU, PYTHON, clean_env  # noqa: E402 - a sibling script, found through the path set above

QUESTION = "茅台最近怎么样"
KEY = "sk-bench-0000"
LLM_ENV = "PIXIU_BENCH_LLM"
PIXIU_ENV = "PIXIU_BENCH_PIXIU"
LLM_MODEL = "pixiu-bench"
RAW = """import sys
from openai import OpenAI
client = OpenAI(base_url=sys.argv[1], api_key=sys.argv[2], max_retries=0)
stream = client.chat.completions.create(model="deepseek-flash", stream=True,
                                        messages=[{"role": "user", "content": sys.argv[3]}])
for chunk in stream:
    if chunk.choices and chunk.choices[0].delta.content:
        sys.stdout.write(chunk.choices[0].delta.content)
print()
"""
SERVER = """from pixiu_cli.conversation.offline.server import OfflineServer
server = OfflineServer(cache_profile="deepseek").bind()
print(server.base_url, flush=True)
server.serve_in_foreground()
"""


def measure(argv: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """(wall seconds, peak RSS in MiB, CPU seconds) of one child process."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"{argv[:2]} failed: {child.stderr.read().decode()[-500:]}")
    return elapsed, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def llm_user_dir(folder: Path, base_url: str) -> Path:
    """llm's documented way to reach an OpenAI-compatible server: a model entry in
    `extra-openai-models.yaml` in its user directory (LLM_USER_PATH)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "extra-openai-models.yaml").write_text(
        f'- model_id: {LLM_MODEL}\n  model_name: deepseek-flash\n  api_base: "{base_url}"\n'
        f"  api_key_name: {LLM_MODEL}\n",
        encoding="utf-8",
    )
    return folder


def commands(
    base_url: str, before: str | None, llm: Path | None, pixiu: Path, question: str = QUESTION
) -> dict[str, list[str]]:
    # The raw script runs on pixiu's interpreter: the SDK and the packages installed with it.
    beside = pixiu.with_name(Path(PYTHON).name)
    python = str(beside) if beside.exists() else PYTHON
    found = {"raw": [python, "-c", RAW, base_url, KEY, question]}
    if llm is not None:
        found["llm"] = [str(llm), "-m", LLM_MODEL, "--key", KEY, question]
    found["ask"] = [str(pixiu), "ask", question]
    found["json"] = [str(pixiu), "ask", "--json", question]
    if before:
        found["before"] = [python, "-c", FROM_SOURCE, str(Path(before).resolve()), "ask", question]
    return found


def asked(run: int, new_question: bool) -> str:
    """The question of timed run `run`: the same every run, or (--new-question) one never
    asked before, whose line no process has counted yet (the usual case for a user)."""
    # Told apart by letters, not digits: a line's count is remembered with its digits as 0
    # (tokens.digit_free_key), so "第 1 个" would be counted from "第 0 个".
    tag = "".join(chr(ord("a") + int(d)) for d in str(run))
    return f"{QUESTION}，问题 {tag} 的细节如何" if new_question else QUESTION


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--before", metavar="SRC", help="also time `pixiu ask` from this source tree")
    parser.add_argument("--quick", action="store_true", help="one run of each (a smoke test)")
    parser.add_argument("--new-question", action="store_true", help="a question never asked before in every run")
    parser.add_argument(
        "--llm",
        type=Path,
        default=os.environ.get(LLM_ENV) or None,
        help=f"the llm executable of a clean llm virtualenv (default: ${LLM_ENV})",
    )
    parser.add_argument(
        "--pixiu",
        type=Path,
        default=Path(os.environ.get(PIXIU_ENV) or PIXIU),
        help=f"the pixiu executable to time (default: ${PIXIU_ENV}, else this virtualenv's)",
    )
    args = parser.parse_args(argv)
    for program in (args.llm, args.pixiu):
        if program is not None and not Path(program).exists():
            raise SystemExit(f"no such program: {program}")
    runs = 1 if args.quick else max(1, args.runs)
    server = subprocess.Popen([PYTHON, "-c", SERVER], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        base_url = server.stdout.readline().strip()
        with tempfile.TemporaryDirectory(prefix="pixiu-ask-bench-") as tmp:
            env = clean_env(Path(tmp) / "home")
            env.update(
                PIXIU_API_KEY=KEY,
                PIXIU_BASE_URL=base_url,
                PIXIU_MODEL="deepseek-flash",
                LLM_USER_PATH=str(llm_user_dir(Path(tmp) / "llm", base_url)),
                XDG_CACHE_HOME=str(Path(tmp) / "cache"),
            )
            # The older source tree gets a home and a cache of its own: its stored line counts
            # may be stamped for another tokenizer, its cached tables (patterns, tokenizer) be
            # of another format under the same file name, and each would discard the other's.
            envs = {
                "before": {
                    **env,
                    "PIXIU_HOME": str(Path(tmp) / "home-before"),
                    "XDG_CACHE_HOME": str(Path(tmp) / "cache-before"),
                }
            }
            argvs = commands(base_url, args.before, args.llm, args.pixiu)
            results: dict[str, list[tuple[float, float, float]]] = {name: [] for name in argvs}
            for name, argv_ in argvs.items():  # warm-up: page cache, .pyc files, the databases
                measure(argv_, envs.get(name, env))
            for run in range(runs):
                for name, argv_ in commands(
                    base_url, args.before, args.llm, args.pixiu, asked(run, args.new_question)
                ).items():
                    results[name].append(measure(argv_, envs.get(name, env)))
    finally:
        server.terminate()
        server.wait()
    report(results, runs)
    floor = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"(peak RSS of this benchmark process, the floor of every child's figure: {floor:.1f} MiB)")
    return 0


def report(results: dict[str, list[tuple[float, float, float]]], runs: int) -> None:
    time_ms = {k: statistics.median(t for t, _, _ in v) * 1000 for k, v in results.items()}
    mib = {k: statistics.median(m for _, m, _ in v) for k, v in results.items()}
    cpu_ms = {k: statistics.median(c for _, _, c in v) * 1000 for k, v in results.items()}
    labels = {
        "llm": "llm -m (simonw/llm)",
        "raw": "raw openai SDK one-shot script",
        "ask": "pixiu ask",
        "json": "pixiu ask --json",
        "before": "pixiu ask from --before SRC",
    }
    if "llm" not in results:
        print(
            f"llm       not given (--llm or ${LLM_ENV}, a clean llm virtualenv's llm); the goal is checked against raw"
        )
    goal_base = "llm" if "llm" in results else "raw"
    for name in results:
        text = (
            f"{name:<10}{labels[name]:<34}median {time_ms[name]:7.1f} ms  cpu {cpu_ms[name]:7.1f} ms  "
            f"peak {mib[name]:6.1f} MiB  (n={runs})"
        )
        if name not in ("llm", "raw"):
            versus = [
                f"{base}: {time_ms[name] / time_ms[base]:.2f}x time, {cpu_ms[name] / cpu_ms[base]:.2f}x cpu, "
                f"{mib[name] / mib[base]:.2f}x memory"
                for base in ("llm", "raw")
                if base in results
            ]
            text += "  " + "; ".join(versus)
            if name in ("ask", "json"):
                ok = cpu_ms[name] <= cpu_ms[goal_base] and mib[name] <= mib[goal_base]
                text += f"  goal <= 1.00x {goal_base}  {'OK' if ok else 'MISSED'}"
        print(text)


if __name__ == "__main__":
    sys.exit(main())
