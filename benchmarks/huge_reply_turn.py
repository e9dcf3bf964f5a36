"""The turn after a 20 MB reply, against the turn after the longest reply carried whole.

One offline server (`OfflineServer(control=True)`) runs in a child process, so this process
stays small (a child's peak RSS starts from its parent's at fork). Each run prepares a
fresh PIXIU_HOME with `pixiu ask 写长一点` answered by a scripted reply, then times, as whole
processes:

    next      `pixiu ask --continue 继续`: the turn after that reply (its request carries
              the reply's history message; its call's cache explanation is worked out in
              the same process);
    cache     `pixiu cache`: works out any explanation not stored yet, shows them all.

for two replies:

    baseline  16,000 characters in 400 different lines (HISTORY_REPLY_CHARS: the longest
              reply carried whole, so the most a next turn carries anyway);
    huge      20 MB of UTF-8 on one line ("茅台" × 3,333,333), the shape that was worst.

Wall time (median of --runs, interleaved), CPU time (user + system; less sensitive than wall
time to a loaded machine) and peak RSS (ru_maxrss of that child, via os.wait4). Goal: huge
≤ 1.2× baseline in CPU and memory ("like any turn"). With --before SRC the same is run from the source tree SRC (an export of an older
commit), --before-runs times (default 1: it took minutes there). Printed, never asserted.

Run:  python benchmarks/huge_reply_turn.py [--runs 5] [--before SRC] [--before-runs 1]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from ask_process import FROM_SOURCE, measure  # noqa: E402 - sibling scripts, found through the path set above
from startup import PIXIU, PYTHON, clean_env  # noqa: E402

KEY = "sk-bench-0000"
GOAL = 1.2
KINDS = ("baseline", "huge")
_WORDS = "贵州茅台基本面分析估值现金流分红渠道库存逐项来看结论在后面白酒龙头业绩增长毛利率净利润批价动销提价回购"


def reply(kind: str) -> str:
    """Built where it is sent (a short-lived child): a child's peak RSS starts from its
    parent's at fork, so this process never holds the 20 MB. The baseline is 400 different
    lines of 39 characters and a line break (16,000 characters, none counted before: the
    tokenizer meets all of it, as with a real answer that long)."""
    if kind == "huge":
        return "茅台" * 3_333_333
    import random

    pick = random.Random(36).choice
    return "".join("".join(pick(_WORDS) for _ in range(38)) + "。\n" for _ in range(400))


ENQUEUE = """import sys
sys.path.insert(0, sys.argv[1])
from huge_reply_turn import enqueue, reply
enqueue(sys.argv[2], sys.argv[3], reply(sys.argv[4]), "好的，接着说。")
"""
SERVER = """import sys
sys.path.insert(0, sys.argv[1])
from pixiu_cli.conversation.offline.server import OfflineServer
server = OfflineServer(cache_profile="deepseek", control=True).bind()
print(server.base_url, server.control_token, flush=True)
server.serve_in_foreground()
"""


def enqueue(base_url: str, token: str, *texts: str) -> None:
    sys.path.insert(0, str(ROOT))
    from pixiu_cli.conversation.offline.server import CONTROL_TOKEN_HEADER

    body = json.dumps([{"text": t, "chunk_chars": 1_000_000} for t in texts], ensure_ascii=False).encode("utf-8")
    root = base_url.rstrip("/").removesuffix("/v1")
    request = urllib.request.Request(
        f"{root}/_pixiu/script",
        data=body,
        method="POST",
        headers={CONTROL_TOKEN_HEADER: token, "Content-Type": "application/json"},
    )
    urllib.request.urlopen(request, timeout=60).read()


def one_run(server: tuple[str, str], source: str | None, kind: str, tmp: Path) -> dict[str, tuple]:
    base_url, token = server
    env = clean_env(tmp / "home")
    env.update(PIXIU_API_KEY=KEY, PIXIU_BASE_URL=base_url, PIXIU_MODEL="deepseek-flash")
    env["XDG_CACHE_HOME"] = str(tmp / "cache")
    pixiu = [PYTHON, "-c", FROM_SOURCE, str(Path(source).resolve())] if source else [PIXIU]
    here = str(Path(__file__).resolve().parent)
    subprocess.run([PYTHON, "-c", ENQUEUE, here, base_url, token, kind], check=True, cwd=ROOT)
    measure([*pixiu, "ask", "写长一点"], env)
    return {"next": measure([*pixiu, "ask", "--continue", "继续"], env), "cache": measure([*pixiu, "cache"], env)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--before", metavar="SRC", help="also run from this source tree")
    parser.add_argument("--before-runs", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="one run of each (a smoke test)")
    args = parser.parse_args(argv)
    runs = 1 if args.quick else max(1, args.runs)
    trees = {"now": (None, runs)}
    if args.before:
        trees["before"] = (args.before, max(1, args.before_runs))
    child = subprocess.Popen([PYTHON, "-c", SERVER, str(ROOT)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    results: dict[tuple[str, str, str], list[tuple]] = {}
    try:
        server = tuple(child.stdout.readline().split())
        with tempfile.TemporaryDirectory(prefix="pixiu-huge-reply-") as tmp:
            for tree, (source, n) in trees.items():
                for run in range(n):
                    for kind in KINDS:  # interleaved: baseline, huge, baseline, ...
                        where = Path(tmp) / f"{tree}-{kind}-{run}"
                        for step, figures in one_run(server, source, kind, where).items():
                            results.setdefault((tree, kind, step), []).append(figures)
    finally:
        child.terminate()
        child.wait()
    report(results)
    return 0


def report(results: dict[tuple[str, str, str], list[tuple]]) -> None:
    def median(key, index):
        return statistics.median(f[index] for f in results[key])

    for tree, kind, step in results:
        wall, rss, cpu = (median((tree, kind, step), i) for i in range(3))
        line = f"{tree:<7}{kind:<9}{step:<6} wall {wall:7.2f} s  cpu {cpu:7.2f} s  peak {rss:7.1f} MiB  (n={len(results[(tree, kind, step)])})"
        if kind == "huge" and (tree, "baseline", step) in results:
            base_wall, base_rss, base_cpu = (median((tree, "baseline", step), i) for i in range(3))
            ratios = wall / base_wall, cpu / base_cpu, rss / base_rss
            ok = ratios[1] <= GOAL and ratios[2] <= GOAL
            line += "  vs baseline {:.2f}x time, {:.2f}x cpu, {:.2f}x memory".format(*ratios)
            line += f"  goal <= {GOAL}x cpu and memory  {'OK' if ok else 'MISSED'}"
        print(line)


if __name__ == "__main__":
    sys.exit(main())
