"""`pixiu ask` as a whole process against a one-shot script on the bare openai SDK.

One offline server (`OfflineServer(cache_profile="deepseek")`) runs in this process. Each
run starts, on that server, the same question as

    ask       `pixiu ask TEXT` with PIXIU_BASE_URL pointing at the server and a key set (as
              with a real provider), in a PIXIU_HOME prepared once (demo-free, empty);
    baseline  `python -c` a script that imports openai, streams one chat completion of
              the same question and prints it (what a minimal one-shot client does).

Wall time per process (median of --runs, interleaved) and peak RSS (ru_maxrss of that child,
via os.wait4). `llm -m` (simonw/llm) was the issue's baseline; it is not installed in the
project's environment, so the raw SDK script stands in for it. Goals: ask ≤ 1.0× the
baseline's time and ≤ its memory. Printed, never asserted.

Run:  python benchmarks/ask_process.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pixiu_cli.offline.server import OfflineServer  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from startup import PIXIU, PYTHON, clean_env  # noqa: E402

QUESTION = "茅台最近怎么样"
KEY = "sk-bench-0000"
RAW = """import sys
from openai import OpenAI
client = OpenAI(base_url=sys.argv[1], api_key=sys.argv[2], max_retries=0)
stream = client.chat.completions.create(model="deepseek-chat", stream=True,
                                        messages=[{"role": "user", "content": sys.argv[3]}])
for chunk in stream:
    if chunk.choices and chunk.choices[0].delta.content:
        sys.stdout.write(chunk.choices[0].delta.content)
print()
"""


def measure(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, peak RSS in MiB) of one child process."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"{argv[:2]} failed: {child.stderr.read().decode()[-500:]}")
    return elapsed, usage.ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    server = OfflineServer(cache_profile="deepseek").start()
    results: dict[str, list[tuple[float, float]]] = {"baseline": [], "ask": []}
    try:
        with tempfile.TemporaryDirectory(prefix="pixiu-ask-bench-") as tmp:
            env = clean_env(Path(tmp) / "home")
            env.update(PIXIU_API_KEY=KEY, PIXIU_BASE_URL=server.base_url, PIXIU_MODEL="deepseek-chat")
            raw = [PYTHON, "-c", RAW, server.base_url, KEY, QUESTION]
            ask = [PIXIU, "ask", QUESTION]
            measure(raw, env), measure(ask, env)  # warm-up: page cache, .pyc files, the database
            for _ in range(max(1, args.runs)):
                results["baseline"].append(measure(raw, env))
                results["ask"].append(measure(ask, env))
    finally:
        server.stop()
    base_t = statistics.median(t for t, _ in results["baseline"]) * 1000
    base_m = statistics.median(m for _, m in results["baseline"])
    ask_t = statistics.median(t for t, _ in results["ask"]) * 1000
    ask_m = statistics.median(m for _, m in results["ask"])
    print(f"baseline  raw openai SDK one-shot script   median {base_t:7.1f} ms  peak {base_m:6.1f} MiB")
    ok = ask_t <= base_t and ask_m <= base_m
    print(f"ask       pixiu ask                        median {ask_t:7.1f} ms  peak {ask_m:6.1f} MiB  "
          f"ratio {ask_t / base_t:.2f}, memory {ask_m / base_m:.2f}  goal <= 1.00, <= 1.00  {'OK' if ok else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
