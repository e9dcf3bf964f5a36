"""Block build time of this checkout's selection engine against a baseline checkout, with
the shipped 5,448-name security master.

One database: a corpus portfolio (``data/selection/datasets/energy_consumer.json``)
imported, and every stock of ``data/securities/stock_basic.csv`` written into the security
master as a market-data sync would (source ``baostock``). The questions are every tenth
case of the selection corpus's tune part, with their earlier messages (follow-ups
included). In one warm process each question's block is built with
`ContextBuilder.context_block(message, now=…, earlier=history)`; the figure is the median,
over repetitions, of the mean time per question. Printed separately: the first question
(the name table is built, jieba and pypinyin load where the engine needs them).

The same script runs twice in the same invocation: in this checkout, and in a baseline
checkout (``git archive`` of ``--baseline``, default the merge base with ``main``, into a
temporary folder, run with that tree first on ``PYTHONPATH``), so both figures come from
one machine under one load; the ratio is printed. Goal, printed and never asserted: a
ratio of at most 1.5. Exits 0.

Run:  python benchmarks/selection_engine.py [--baseline REF] [--reps 15]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOAL_RATIO = 1.5
NOW = "2026-11-25T10:30:00+08:00"


def _database(folder: Path):
    from datetime import datetime

    from pixiu_cli.home.document_file import parse_document
    from pixiu_cli.home.store import InvestorStore
    from pixiu_cli.kernel.resources import data_dir
    from pixiu_cli.kernel.store.database import open_database
    from pixiu_cli.market.securities import Security, shipped_names
    from pixiu_cli.market.store import SecurityMaster

    document = json.loads((data_dir() / "selection" / "datasets" / "energy_consumer.json").read_text("utf-8"))
    db = open_database(folder / "bench.db")
    data = parse_document(document, datetime.fromisoformat(NOW))
    InvestorStore(db).replace_all(data)
    listed = shipped_names()
    SecurityMaster(db).upsert([Security(s.code, s.short_name, "stock", source="baostock") for s in listed])
    return db, len(listed)


def _questions() -> list[tuple[str, list[str]]]:
    """Every tenth tune case of this checkout (the baseline is given the same list)."""
    cases = json.loads((ROOT / "data" / "selection" / "tune.json").read_text("utf-8"))
    return [(c["message"], c.get("history", [])) for c in cases[::10]]


def measure(reps: int, questions: list[tuple[str, list[str]]]) -> dict:
    """This process's engine: first question, and the median of the mean per question."""
    from datetime import datetime

    from pixiu_cli.conversation.context.builder import ContextBuilder
    from pixiu_cli.conversation.store import ConversationStore
    from pixiu_cli.home.store import InvestorStore

    now = datetime.fromisoformat(NOW)
    with tempfile.TemporaryDirectory(prefix="pixiu-sel-engine-") as tmp:
        db, names = _database(Path(tmp))
        try:
            builder = ContextBuilder(ConversationStore(db), InvestorStore(db), clock=lambda: now)
            started = time.perf_counter()
            builder.context_block(questions[0][0], now=now, earlier=questions[0][1])
            first_ms = (time.perf_counter() - started) * 1000
            for message, history in questions:  # warm every lazy part once
                builder.context_block(message, now=now, earlier=history)
            samples = []
            for _ in range(reps):
                started = time.perf_counter()
                for message, history in questions:
                    builder.context_block(message, now=now, earlier=history)
                samples.append((time.perf_counter() - started) * 1000 / len(questions))
        finally:
            db.conn.close()
    import pixiu_cli

    return {
        "engine": str(Path(pixiu_cli.__file__).parent),
        "names": names,
        "questions": len(questions),
        "first_ms": first_ms,
        "median_ms": statistics.median(samples),
    }


def _merge_base() -> str:
    done = subprocess.run(["git", "merge-base", "HEAD", "main"], cwd=ROOT, capture_output=True, text=True)
    return done.stdout.strip() or "HEAD"


def _child(tree: Path, asked: Path, reps: int) -> dict:
    """The measurement in a fresh process running the checkout at `tree`."""
    script = tree / "benchmarks" / "selection_engine_child.py"
    script.write_text(Path(__file__).read_text("utf-8"), encoding="utf-8")
    try:
        done = subprocess.run(
            [sys.executable, str(script), "--measure", str(asked), "--reps", str(reps)],
            cwd=tree,
            env={**os.environ, "PYTHONPATH": str(tree)},
            capture_output=True,
            text=True,
            check=True,
        )
    finally:
        script.unlink()
    return json.loads(done.stdout.strip().splitlines()[-1])


def _compare(ref: str, reps: int, rounds: int, questions: list) -> tuple[list[dict], list[dict]]:
    """Baseline and this checkout measured alternately, each in a fresh process, `rounds`
    times: the machine's load drifts, and alternating spreads it over both."""
    archive = subprocess.run(["git", "archive", ref], cwd=ROOT, capture_output=True, check=True).stdout
    with tempfile.TemporaryDirectory(prefix="pixiu-sel-baseline-") as tmp:
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        asked = Path(tmp) / "questions.json"
        asked.write_text(json.dumps(questions, ensure_ascii=False), encoding="utf-8")
        # Compiled first, so the baseline's first question is not charged for it.
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(tmp) / "pixiu_cli")], check=True)
        base, mine = [], []
        for _ in range(rounds):
            base.append(_child(Path(tmp), asked, reps))
            mine.append(_child(ROOT, asked, reps))
    return base, mine


def _median(runs: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--baseline", default=None, help="git ref of the baseline (default: merge base with main)")
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=3, help="alternating baseline / this checkout runs")
    parser.add_argument("--measure", metavar="QUESTIONS", help="measure this process's engine on a JSON list")
    args = parser.parse_args(argv)
    if args.measure:
        questions = json.loads(Path(args.measure).read_text("utf-8"))
        print(json.dumps(measure(args.reps, questions)))
        return 0
    ref = args.baseline or _merge_base()
    base, mine = _compare(ref, args.reps, max(1, args.rounds), _questions())
    ratio = _median(mine, "median_ms") / _median(base, "median_ms")
    print(f"security master {mine[0]['names']:,} names, {mine[0]['questions']} questions from the tune corpus")
    print(f"engines: baseline {base[0]['engine']}, this {mine[0]['engine']}")
    for label, runs in ((f"baseline {ref[:12]}", base), ("this checkout        ", mine)):
        per = ", ".join(f"{r['median_ms']:.2f}" for r in runs)
        print(
            f"{label}  first question {_median(runs, 'first_ms'):7.1f} ms  "
            f"then {_median(runs, 'median_ms'):6.2f} ms a question (runs: {per})"
        )
    print(f"ratio {ratio:.2f} (goal <= {GOAL_RATIO:g})  {'OK' if ratio <= GOAL_RATIO else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    sys.exit(main())
