"""`pixiu performance` on a ten-year, 5,000-fill ledger, as whole processes: the first call
(which derives the account's value at every session's close) and the calls after it (which
read the kept series), against `pixiu holdings` in the same home as the baseline.

The home: a 同花顺 交割单 of 5,000 rows written by statement_scale.py's writer (40 codes of the
shipped security list, 2016–2025, buys and sells in lots, fees, dividends and their tax, a
银证转入 first, the running 资金余额), imported with `pixiu trades import`; seeded random-walk
daily bars for every code on every session, and one for sh000300, imported with `pixiu data
import`. Setup is not measured.

Goal (printed, never asserted): `pixiu performance` ≤ 1 s wall after the first call.

Run:  python benchmarks/performance.py [--fills 5000] [--reps 5] [--keep DIR]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from statement_scale import COMMAND, HEADER, _Writer, codes, env_for, run_child, sessions  # noqa: E402

GOAL = 1.0


def random_walks(names, days: list[date], seed: int) -> dict[str, list[float]]:
    """A seeded close for every code (and the index) on every session."""
    rng = random.Random(seed)
    out = {}
    for code, _ in [*names, ("index", "")]:
        price, closes = (rng.uniform(5, 80) if code != "index" else 3000.0), []
        for _ in days:
            price = min(max(2.5, price * (1 + rng.gauss(0, 0.02))), 250.0 if code != "index" else 1e9)
            closes.append(round(price, 2))
        out[code] = closes
    return out


def write_ledger(path: Path, fills: int, names, days: list[date], closes, seed: int) -> None:
    """`fills` rows spread over every session of the ten years, each trade near that day's close."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8-sig", newline="") as out:
        out.write(HEADER + "\r\n")
        w = _Writer(out, seed, names)
        w.row(days[0], 0, "", "", "银证转入", 0, 0.0, 0.0, (0.0, 0.0, 0.0), 50_000_000.0, True)
        chance = fills / len(days)
        for i, day in enumerate(days):
            w.price = {code: closes[code][i] for code, _ in names}
            second = 1800
            for _ in range(int(chance) + (rng.random() < chance % 1)):
                if w.written >= fills:
                    return
                if rng.random() < 0.01:
                    w.dividend(day, second)
                else:
                    w.trade(day, second)
                second += 60


def write_bars(folder: Path, days: list[date], closes) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for code, series in closes.items():
        rows = [f"{day.isoformat()},{c},{c},{c},{c},100000,0" for day, c in zip(days, series)]
        (folder / f"{code}.csv").write_text(
            "datetime,open,high,low,close,volume,openinterest\n" + "\n".join(rows) + "\n"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fills", type=int, default=5000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="500 fills, two reps: does the script still run?")
    parser.add_argument("--keep", help="write the home here and keep it")
    args = parser.parse_args()
    if args.quick:
        args.fills, args.reps = 500, 2
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(args.keep or tmp)
        base.mkdir(parents=True, exist_ok=True)
        home = base / "home"
        env = env_for(home)
        names = codes(40, 7)
        days = sessions(0)
        if not home.exists():
            statement, bars = base / "交割单.csv", base / "bars"
            closes = random_walks(names, days, 7)
            write_ledger(statement, args.fills, names, days, closes, 7)
            write_bars(bars, days, closes)
            index = bars / "index.csv"
            run_child([*COMMAND, "data", "import", str(index), "--symbol", "sh000300", "--no-refresh"], env)
            index.unlink()
            run_child([*COMMAND, "data", "import", str(bars), "--no-refresh"], env)
            run_child([*COMMAND, "trades", "import", str(statement)], env)
        performance = [*COMMAND, "performance", "all", "--no-chart"]
        first = run_child(performance, env)
        print(f"first call (derives the series): wall {first[0]:.2f} s, CPU {first[1]:.2f} s, RSS {first[2]:.0f} MiB")
        print(first[3].splitlines()[1] if len(first[3].splitlines()) > 1 else first[3])
        later, holdings = [], []
        for _ in range(args.reps):
            holdings.append(run_child([*COMMAND, "holdings"], env))
            later.append(run_child(performance, env))
        wall = statistics.median(r[0] for r in later)
        cpu = statistics.median(r[1] for r in later)
        base_wall = statistics.median(r[0] for r in holdings)
        base_cpu = statistics.median(r[1] for r in holdings)
        print(
            f"later calls (median of {args.reps}): wall {wall:.2f} s, CPU {cpu:.2f} s; "
            f"`pixiu holdings` wall {base_wall:.2f} s, CPU {base_cpu:.2f} s"
        )
        print(f"performance / holdings: wall {wall / base_wall:.2f}x, CPU {cpu / base_cpu:.2f}x")
        print(f"first / later: wall {first[0] / wall:.2f}x")
        print(f"goal: later calls <= {GOAL:.1f} s wall: {'met' if wall <= GOAL else 'MISSED'} ({wall:.2f} s)")


if __name__ == "__main__":
    main()
