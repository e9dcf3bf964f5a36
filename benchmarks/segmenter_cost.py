"""What the lazily loaded Chinese segmenter costs a one-shot `pixiu context` and `pixiu ask`
(issue 27).

A fresh pixiu home with a corpus portfolio imported; then, in fresh processes, the median
wall time of

    plain      a question no word boundary is needed for (茅台最近怎么样): the segmenter not loaded
    segmented  a question whose cue must be a whole word (其他的票都绿了，我该怎么办): the
               segmenter opens its dictionary and adds the name table's names

for `pixiu context --json Q` and `pixiu ask --offline --json Q`. Also printed: loading the
dictionary alone in a fresh interpreter, by jieba (imported, its own cache loader) and by
pixiu (conversation/selection/words.py: the compact dictionary's sample read from the user cache, jieba
not imported), both in the same run. `pixiu --help` never loads it (tests/cli/test_ask.py).
Exits 0.

Run:  python benchmarks/segmenter_cost.py [--reps 5]
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

ROOT = Path(__file__).resolve().parents[1]
PIXIU = str(Path(sys.executable).with_name("pixiu"))
PORTFOLIO = ROOT / "data" / "selection" / "datasets" / "energy_consumer.json"
QUESTIONS = {"plain": "茅台最近怎么样", "segmented": "其他的票都绿了，我该怎么办"}


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIXIU_")}
    env.update({"PIXIU_HOME": str(home), "NO_COLOR": "1", "LANG": "C.UTF-8"})
    env.pop("DEEPSEEK_API_KEY", None)
    return env


def _wall_ms(argv: list[str], env: dict[str, str], reps: int) -> float:
    samples = []
    for _ in range(reps):
        started = time.perf_counter()
        subprocess.run(argv, env=env, capture_output=True, check=True)
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


JIEBAS_LOADER = "import jieba, logging; jieba.setLogLevel(logging.WARNING); jieba.Tokenizer().initialize()"
PIXIUS_LOADER = "from pixiu_cli.market.names import rules, words; import pixiu_cli.kernel.resources; words.warm()"


def _loader_ms(code: str, reps: int) -> float:
    """A fresh interpreter that loads the dictionary, less an empty one; each
    loader has read its own cache once before (jieba's in the temporary folder, pixiu's in the
    user cache)."""
    env = dict(os.environ)
    subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True)
    empty = _wall_ms(
        [sys.executable, "-c", "import pixiu_cli.market.names.rules, pixiu_cli.kernel.resources"], env, reps
    )
    return _wall_ms([sys.executable, "-c", code], env, reps) - empty


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pixiu-seg-") as tmp:
        env = _env(Path(tmp))
        subprocess.run([PIXIU, "import", str(PORTFOLIO)], env=env, capture_output=True, check=True)
        for command in (["context", "--json"], ["ask", "--offline", "--json"]):
            times = {k: _wall_ms([PIXIU, *command, q], env, args.reps) for k, q in QUESTIONS.items()}
            print(
                f"pixiu {command[0]:<8} plain {times['plain']:6.0f} ms  segmented {times['segmented']:6.0f} ms  "
                f"(+{times['segmented'] - times['plain']:.0f} ms when the segmenter loads)"
            )
    theirs, ours = _loader_ms(JIEBAS_LOADER, args.reps), _loader_ms(PIXIUS_LOADER, args.reps)
    print(
        f"dictionary alone: jieba (import + its loader) {theirs:.0f} ms, pixiu's {ours:.0f} ms ({ours / theirs:.2f}x)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
