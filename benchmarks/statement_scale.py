"""A 1,000,000-row broker statement: `pixiu trades import FILE` and `pixiu holdings` after it,
as whole processes, against `pandas.read_csv` of the same file (issue 42's statement row).

The file is a 同花顺 交割单 (the columns of tests/fixtures/statements/ths_jiaogedan.csv,
UTF-8 with a BOM), seeded: 300 codes of the shipped security list listed before 2015, every
row on a session of the shipped calendar (2016–2025, ~400 rows a day, times in order), buys
and sells in lots of 100 that never sell more than is held, the fees a broker charges
(commission at least 5 yuan, stamp duty on sales, transfer fee), a 银证转入 first and then one
every ~20,000 rows, a dividend and its tax now and then, the running 资金余额, and a
合同编号 on every row except one in twenty (those are told apart by their fields and their
count). One in fifty trades is followed by a second fill equal to it on the same day and
second: two real fills that must both count.

    import    `pixiu trades import FILE` in a fresh PIXIU_HOME: wall, CPU (user+sys) and
              peak RSS of the child (os.wait4's rusage of that one process)
              baseline: `python -c "import pandas; pandas.read_csv(FILE)"`, interleaved
    holdings  `pixiu holdings` in the home the first import made (median of --reps)

Goals (printed, never asserted): import ≤ 3× pandas; `pixiu holdings` ≤ 1 s wall.

    again     (--again) the same file imported again into that home: nothing added

Run:  python benchmarks/statement_scale.py [--rows 1000000] [--reps 3] [--again] [--src TREE] [--keep DIR]
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = Path(sys.argv[sys.argv.index("--src") + 1]).resolve() if "--src" in sys.argv else ROOT
sys.path.insert(0, str(SRC))

from pixiu_cli.market.trading_days import is_trading_day  # noqa: E402

PIXIU = str(Path(sys.executable).with_name("pixiu"))
COMMAND = [PIXIU] if SRC == ROOT else [sys.executable, "-m", "pixiu_cli"]
NOW = "2025-12-10T16:00"
IMPORT_GOAL, HOLDINGS_GOAL = 3.0, 1.0
HEADER = (
    "成交日期,成交时间,证券代码,证券名称,操作,成交数量,成交均价,成交金额,手续费,印花税,过户费,其他杂费,"
    "发生金额,资金余额,合同编号,股东代码"
)
ACCOUNT = "0123456789"


def codes(count: int, seed: int) -> list[tuple[str, str]]:
    with open(ROOT / "data" / "securities" / "stock_basic.csv", encoding="utf-8") as f:
        listed = [(r["symbol"], r["name"]) for r in csv.DictReader(f) if r["list_date"] < "2015-01-01"]
    return random.Random(seed).sample(listed, count)


def sessions(rows: int) -> list[date]:
    days, d = [], date(2016, 1, 4)
    while d <= date(2025, 12, 5):
        if is_trading_day(d):
            days.append(d)
        d += timedelta(days=1)
    return days


def _fees(amount: float, sell: bool) -> tuple[float, float, float]:
    return max(5.0, round(amount * 0.00025, 2)), round(amount * 0.0005, 2) if sell else 0.0, round(amount * 0.00001, 2)


class _Writer:
    def __init__(self, out, seed: int, names: list[tuple[str, str]]):
        self.out, self.rng, self.names = out, random.Random(seed), names
        self.held = {code: 0 for code, _ in names}
        self.price = {code: self.rng.uniform(5, 80) for code, _ in names}
        self.balance, self.contract, self.written = 0.0, 1000, 0

    def row(
        self, day: date, second: int, code: str, name: str, action: str, qty, price, amount, fees, change, numbered
    ):
        self.balance = round(self.balance + change, 2)
        self.contract += 1
        t = f"{9 + second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}"
        commission, stamp, transfer = fees
        cells = [
            day.strftime("%Y%m%d"), t, f'="{code}"' if code else "", name, action, str(qty), f"{price:.3f}",
            f"{amount:.2f}", f"{commission:.2f}", f"{stamp:.2f}", f"{transfer:.2f}", "0.00", f"{change:.2f}",
            f"{self.balance:.2f}", str(self.contract) if numbered else "", ACCOUNT if code else "",
        ]  # fmt: skip
        self.out.write(",".join(cells) + "\r\n")
        self.written += 1

    def trade(self, day: date, second: int) -> None:
        code, name = self.names[self.rng.randrange(len(self.names))]
        price = self.price[code] = min(max(self.price[code] * (1 + self.rng.uniform(-0.02, 0.02)), 2.0), 300.0)
        sell = self.held[code] >= 100 and self.rng.random() < 0.45
        lots = self.rng.randint(1, min(10, self.held[code] // 100)) if sell else self.rng.randint(1, 10)
        qty, price = lots * 100, round(price, 2)
        amount = round(qty * price, 2)
        fees = _fees(amount, sell)
        change = round(amount - sum(fees), 2) if sell else round(-(amount + sum(fees)), 2)
        numbered = self.rng.random() >= 0.05
        twice = self.rng.random() < 0.02
        for _ in range(2 if twice and (not sell or self.held[code] >= 2 * qty) else 1):
            self.held[code] += -qty if sell else qty
            self.row(day, second, code, name, "卖出" if sell else "买入", qty, price, amount, fees, change, numbered)

    def dividend(self, day: date, second: int) -> None:
        code, name = next(((c, n) for c, n in self.names if self.held[c] >= 1000), self.names[0])
        if self.held[code] < 1000:
            return
        cash = round(self.held[code] * 0.05, 2)
        self.row(day, second, code, name, "股息入账", 0, 0.0, cash, (0.0, 0.0, 0.0), cash, True)
        tax = round(cash * 0.1, 2)
        self.row(day, second + 1, code, name, "股息红利税补缴", 0, 0.0, tax, (0.0, 0.0, 0.0), -tax, True)


def write_statement(path: Path, rows: int, seed: int = 42) -> None:
    days = sessions(rows)
    per_day = max(1, rows // len(days) + 1)
    with open(path, "w", encoding="utf-8-sig", newline="") as out:
        out.write(HEADER + "\r\n")
        w = _Writer(out, seed, codes(300, seed))
        for day in days:
            second = 1800  # 09:30
            while w.written < rows and second < 6 * 3600 - 10:
                if w.written % 20_000 == 0:
                    w.row(day, second, "", "", "银证转入", 0, 0.0, 0.0, (0.0, 0.0, 0.0), 50_000_000.0, True)
                elif w.rng.random() < 0.002:
                    w.dividend(day, second)
                else:
                    w.trade(day, second)
                second += max(1, (6 * 3600 - 1800) // per_day)
            if w.written >= rows:
                break


def run_child(argv: list[str], env: dict[str, str]) -> tuple[float, float, float, str]:
    """(wall, CPU user+sys, peak RSS MiB, output) of one child process."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(argv, env=env, cwd=SRC, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        out.seek(0)
        text = out.read().decode("utf-8", errors="replace")
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(argv[-3:])} failed:\n{text[-1500:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, text


def pandas_baseline(path: Path) -> list[str]:
    """The statement row's baseline: pandas reading the file, as a process of its own."""
    return [sys.executable, "-c", f"import pandas; pandas.read_csv({str(path)!r})"]


def env_for(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIXIU_") and "API_KEY" not in k}
    env.update(PIXIU_HOME=str(home), PIXIU_NOW=NOW, NO_COLOR="1", PYTHONIOENCODING="utf-8", LANG="C.UTF-8")
    if SRC != ROOT:
        env["PYTHONPATH"] = str(SRC)
    return env


def _median(samples: list[tuple], i: int) -> float:
    return statistics.median(s[i] for s in samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--src", help="the pixiu source tree to measure (default: this one)")
    parser.add_argument("--again", action="store_true", help="then import the same file into the first home again")
    parser.add_argument("--keep", help="write the statement and homes here and keep them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(args.keep or tmp)
        base.mkdir(parents=True, exist_ok=True)
        path = base / "交割单.csv"
        if not path.exists():
            started = time.perf_counter()
            write_statement(path, args.rows)
            print(
                f"wrote {args.rows:,} rows, {path.stat().st_size / 2**20:.0f} MiB in {time.perf_counter() - started:.0f} s"
            )
        pandas = pandas_baseline(path)
        baseline, imports = [], []
        for rep in range(args.reps):
            baseline.append(run_child(pandas, env_for(base / "none")))
            home = base / f"home{rep}"
            shutil.rmtree(home, ignore_errors=True)
            imports.append(run_child([*COMMAND, "trades", "import", str(path)], env_for(home)))
            print(f"rep {rep}: pandas {baseline[-1][1]:.1f} s CPU, import {imports[-1][:3]}", flush=True)
        print(imports[0][3].splitlines()[0])
        holdings = [run_child([*COMMAND, "holdings"], env_for(base / "home0")) for _ in range(max(3, args.reps))]
        report(baseline, imports, holdings)
        if args.again:  # the same file again: every fill found by its day, none added
            wall, cpu, rss, out = run_child([*COMMAND, "trades", "import", str(path)], env_for(base / "home0"))
            print(f"again    wall {wall:7.1f} s  CPU {cpu:7.1f} s  peak RSS {rss:7.0f} MiB  {out.splitlines()[0]}")


def report(baseline, imports, holdings) -> None:
    wall, cpu, rss = (_median(imports, i) for i in range(3))
    b_wall, b_cpu, b_rss = (_median(baseline, i) for i in range(3))
    print(f"import   wall {wall:7.1f} s  CPU {cpu:7.1f} s  peak RSS {rss:7.0f} MiB")
    print(f"pandas   wall {b_wall:7.1f} s  CPU {b_cpu:7.1f} s  peak RSS {b_rss:7.0f} MiB")
    print(
        f"ratio    wall {wall / b_wall:7.2f}×   CPU {cpu / b_cpu:7.2f}×   RSS {rss / b_rss:.2f}×   (goal ≤ {IMPORT_GOAL}×)"
    )
    h_wall, h_cpu, h_rss = (_median(holdings, i) for i in range(3))
    print(
        f"holdings wall {h_wall:7.2f} s  CPU {h_cpu:7.2f} s  peak RSS {h_rss:7.0f} MiB  (goal ≤ {HOLDINGS_GOAL} s wall)"
    )


if __name__ == "__main__":
    main()
