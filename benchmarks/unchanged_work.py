"""No work when nothing changed, and no whole-market work for a few symbols (issue 42).

Every data set is built in a temp dir from the three real, unadjusted histories in
tests/fixtures/market/ (000001, 000002, 000333, with their corporate actions), each symbol's
copy scaled by its own factor (prices, and cash dividends with them), so every bar stays a
plausible A-share bar on a real trading day.

    sync     `pixiu data sync` with no network (a baostock whose login cannot reach its
             server) in a home with 20 holdings' bars and 10,000 statement trades (one
             decision each), against `pixiu --help` in the same home. New processes,
             interleaved; wall and CPU (user + system). Goal <= 2x.
    refresh  `services.analytics.profiles(..., again=True)` (what `pixiu profile --refresh
             CODES` runs) for the same 100 symbols with 5,000 series stored (~12 M bars)
             against with 500 stored, CPU in this process. Goal <= 1.2x. Also printed: the
             same for the first refresh after a write of bars, when no day's market-wide
             counts are kept yet (market_gap_days emptied before each run).
    import   `pixiu data import DIR --no-refresh` of 500 files x 10 years (a new process,
             CPU) against `pandas.read_csv` of the same files in this process. Goal <= 3x.

Printed, never asserted (2 cores shared with other jobs). `--quick` runs tiny sizes (the
smoke test); `--only NAME` one section.

Run:  python benchmarks/unchanged_work.py [--only sync|refresh|import] [--quick] [--runs 5] [--src TREE]
      (TREE: e.g. `git archive a5b5ad5 | tar -x -C /tmp/base`, run on this virtualenv)
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# --src TREE: measure another source tree (an export of an older commit) on this virtualenv
SRC = Path(sys.argv[sys.argv.index("--src") + 1]).resolve() if "--src" in sys.argv else ROOT
sys.path.insert(0, str(SRC))
sys.path.insert(0, str(ROOT / "benchmarks"))

from startup import PIXIU, clean_env  # noqa: E402

from pixiu_cli.conversation.context.builder import SHANGHAI  # noqa: E402
from pixiu_cli.market.handle import Market  # noqa: E402

# the command as the user runs it; another tree through the same interpreter
COMMAND = [PIXIU] if SRC == ROOT else [sys.executable, "-m", "pixiu_cli"]


def tree_env(env: dict[str, str]) -> dict[str, str]:
    """`env` with SRC first on the path (each child also runs in SRC: `-m` puts the cwd first)."""
    return (
        env if SRC == ROOT else dict(env, PYTHONPATH=os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")])))
    )


HISTORIES = ROOT / "tests" / "fixtures" / "market"
REAL = ("000001", "000002", "000333")
NOW = datetime(2025, 6, 3, 16, 0, tzinfo=SHANGHAI)
PINNED = "2025-06-03T16:00"


def verdict(ratio: float, goal: float) -> str:
    return f"ratio {ratio:5.2f}  goal <= {goal:.2f}  {'OK' if ratio <= goal else 'MISSED'}"


# -- data sets ----------------------------------------------------------------------------


def real_rows(code: str) -> list[list[str]]:
    with open(HISTORIES / f"{code}.csv", newline="") as handle:
        return list(csv.reader(handle))[1:]


def real_actions(code: str) -> list[tuple[str, float, float]]:
    path = HISTORIES / f"{code}_actions.csv"
    if not path.exists():
        return []
    rows = list(csv.reader(path.open()))[1:]
    return [(r[0], float(r[1]), float(r[2])) for r in rows if r]


def factor(n: int) -> float:
    """Symbol n's price scale: 0.5x to 3x, different for neighbours."""
    return 0.5 + ((n * 37) % 101) / 40


def codes(count: int) -> list[str]:
    """Real listed codes (the shipped security list), main board and ChiNext first."""
    from pixiu_cli.market.securities import shipped_security_list

    stocks = sorted(shipped_security_list().stocks, key=lambda s: (s.board not in ("main", "chinext"), s.code))
    return [s.code for s in stocks[:count]]


def history_csv(n: int) -> tuple[str, str | None]:
    """(bars CSV text, actions CSV text or None) of symbol n: a real history scaled."""
    real, k = REAL[n % 3], factor(n)
    lines = ["date,open,high,low,close,volume"]
    for d, o, h, lo, c, v, _ in real_rows(real):
        lines.append(f"{d},{float(o) * k:.2f},{float(h) * k:.2f},{float(lo) * k:.2f},{float(c) * k:.2f},{v}")
    actions = real_actions(real)
    if not actions:
        return "\n".join(lines) + "\n", None
    acts = ["ex_date,cash_per_share,shares_per_share"] + [f"{d},{cash * k:.4f},{shares}" for d, cash, shares in actions]
    return "\n".join(lines) + "\n", "\n".join(acts) + "\n"


def write_histories(folder: Path, symbols: list[str], with_actions: bool = True) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for n, symbol in enumerate(symbols):
        bars, actions = history_csv(n)
        (folder / f"{symbol}.csv").write_text(bars)
        if actions and with_actions:
            (folder / f"{symbol}_actions.csv").write_text(actions)


def statement(path: Path, symbols: list[str], trades: int) -> None:
    """A 同花顺 交割单 (GBK) of `trades` buys and sells spread over the symbols, each at its
    day's close: two buys of 200 then a sell of 100, so no sale exceeds the position."""
    header = "成交日期,成交时间,证券代码,证券名称,操作,成交数量,成交均价,成交金额,手续费,印花税,过户费,其他杂费,发生金额,合同编号,股东代码"
    lines = [header, "20150601,09:30:00,,,银证转入,0,0.000,0.00,0.00,0.00,0.00,0.00,900000000.00,,"]
    per = trades // len(symbols)
    histories = {code: real_rows(code) for code in REAL}
    body = []
    for n, symbol in enumerate(symbols):
        rows, k = histories[REAL[n % 3]], factor(n)
        step = max(1, (len(rows) - 30) // per)
        for i in range(per):
            day, close = rows[i * step][0], float(rows[i * step][4]) * k
            sell = i % 3 == 2
            qty = 100 if sell else 200
            amount = round(close * qty, 2)
            fee = 5.0
            cash = amount - fee if sell else -(amount + fee)
            side = "卖出" if sell else "买入"
            stamp = f"{day.replace('-', '')},10:{i % 60:02d}:{n % 60:02d}"
            body.append(
                (day, f'{stamp},="{symbol}",,{side},{qty},{close:.3f},{amount:.2f},{fee:.2f},0.00,0.00,0.00,'
                 f"{cash:.2f},{n * 100000 + i},0123456789")
            )  # fmt: skip
    lines += [line for _, line in sorted(body)]
    path.write_bytes(("\n".join(lines) + "\n").encode("gb18030"))


def run_ok(env: dict[str, str], *args: str) -> str:
    done = subprocess.run([*COMMAND, *args], env=tree_env(env), cwd=SRC, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"pixiu {' '.join(args[:2])} failed: {done.stderr[-600:]}")
    return done.stdout


def process(argv: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """(wall, CPU, exit code) of one child process."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, env=tree_env(env), cwd=SRC, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def interleaved(commands: dict[str, list[str]], env: dict[str, str], runs: int) -> dict[str, tuple[float, float]]:
    """Median (wall, CPU) of each command, runs interleaved, after one warm-up each."""
    for argv in commands.values():
        process(argv, env)
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, argv in commands.items():
            wall, cpu, _ = process(argv, env)
            samples[name].append((wall, cpu))
    return {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in samples.items()}


# -- sync ---------------------------------------------------------------------------------

OFFLINE_BAOSTOCK = '''"""baostock on a machine with no network: login cannot reach the server."""


def login():
    raise OSError(101, "Network is unreachable")


def logout():
    pass
'''


def bench_sync(symbol_count: int, trades: int, runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="pixiu-sync-bench-") as tmp:
        base = Path(tmp)
        package = base / "offline" / "baostock"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text(OFFLINE_BAOSTOCK)
        env = dict(clean_env(base / "home"), PIXIU_NOW=PINNED, PYTHONPATH=str(package.parent))
        symbols = codes(symbol_count)
        write_histories(base / "bars", symbols)
        run_ok(env, "data", "import", str(base / "bars"), "--no-refresh")
        statement(base / "jiaogedan.csv", symbols, trades)
        run_ok(env, "trades", "import", str(base / "jiaogedan.csv"))
        failed = subprocess.run([*COMMAND, "data", "sync"], env=tree_env(env), cwd=SRC, capture_output=True, text=True)
        said = failed.stderr.strip().splitlines()
        timed = interleaved({"help": [*COMMAND, "--help"], "sync": [*COMMAND, "data", "sync"]}, env, runs)
    (hw, hc), (sw, sc) = timed["help"], timed["sync"]
    print(f"sync     {symbol_count} holdings, {trades} statement trades; `pixiu data sync` says: {said[-1:]}")
    print(
        f"sync     data sync {sw * 1000:6.0f} ms wall {sc * 1000:5.0f} ms cpu  --help {hw * 1000:5.0f} ms wall "
        f"{hc * 1000:5.0f} ms cpu  wall {verdict(sw / hw, 2.0)}  cpu {verdict(sc / hc, 2.0)}"
    )


# -- refresh ------------------------------------------------------------------------------


def store_market(db, symbols: list[str], first: int) -> None:
    """Each symbol's scaled real history and actions, written as an import writes them."""
    from pixiu_cli.market.bars import BarSeries, CorporateAction, SeriesWrite
    from pixiu_cli.market.store import MarketStore

    market = MarketStore(db)
    columns = {}
    for code in REAL:
        rows = real_rows(code)
        d, o, h, lo, c, v = ([r[i] for r in rows] for i in range(6))
        columns[code] = (tuple(d), *(tuple(map(float, x)) for x in (o, h, lo, c, v)))
    db.conn.execute("pragma synchronous = off")  # building the data set, not timed
    for n, symbol in enumerate(symbols, start=first):
        real, k = REAL[n % 3], factor(n)
        d, o, h, lo, c, v = columns[real]
        size = len(d)
        scaled = (tuple(round(x * k, 2) for x in col) for col in (o, h, lo, c))
        bars = BarSeries(symbol, "none", d, *scaled, v, (None,) * size, (1,) * size, (False,) * size)
        actions = [
            CorporateAction(symbol, day, round(cash * k, 4), shares, None, "import", "cash_shares", NOW.isoformat())
            for day, cash, shares in real_actions(real)
        ]
        market.write_series(SeriesWrite(symbol, bars, "csv", NOW.isoformat(), actions=actions))


def timed_profiles(db, symbols: list[str]) -> float:
    from pixiu_cli.market.analytics.service import profiles

    started = time.process_time()
    profiles(Market(db), symbols, NOW, None, True)
    return time.process_time() - started


def forget_kept_days(db) -> None:
    """As any write of bars from before the seasons asked about leaves it: no day's market-wide
    counts kept (market_gap_days; a tree from before it has none to forget)."""
    import sqlite3

    try:
        db.conn.execute("delete from market_gap_days")
    except sqlite3.OperationalError:
        pass


def bench_refresh(few: int, many: int, refreshed: int, runs: int) -> None:
    from pixiu_cli.kernel.store.database import open_database

    with tempfile.TemporaryDirectory(prefix="pixiu-refresh-bench-") as tmp:
        symbols = codes(many)
        small, large = open_database(Path(tmp) / "few.db"), open_database(Path(tmp) / "many.db")
        started = time.perf_counter()
        store_market(small, symbols[:few], 0)
        store_market(large, symbols, 0)
        built = time.perf_counter() - started
        hundred = symbols[:refreshed]
        timed_profiles(small, hundred), timed_profiles(large, hundred)  # warm-up: imports, caches
        samples: dict[str, list[float]] = {"few": [], "many": []}
        for _ in range(runs):
            samples["few"].append(timed_profiles(small, hundred))
            samples["many"].append(timed_profiles(large, hundred))
        cold: dict[str, list[float]] = {"few": [], "many": []}
        for _ in range(runs):  # the first refresh after bars were written: every day counted again
            for name, db in (("few", small), ("many", large)):
                forget_kept_days(db)
                cold[name].append(timed_profiles(db, hundred))
        bars = large.conn.execute("select count(*) from market_bars").fetchone()[0]
        small.close(), large.close()
    f, m = statistics.median(samples["few"]), statistics.median(samples["many"])
    cf, cm = statistics.median(cold["few"]), statistics.median(cold["many"])
    print(f"refresh  data sets built in {built:.0f} s: {few} and {many} series ({bars:,} bars)")
    print(
        f"refresh  profile --refresh of {refreshed} symbols: {few} stored {f:6.2f} s cpu, {many} stored "
        f"{m:6.2f} s cpu  {verdict(m / f, 1.2)}"
    )
    print(
        f"refresh  the same, first after a write of bars (no day kept): {few} stored {cf:6.2f} s cpu, "
        f"{many} stored {cm:6.2f} s cpu  ratio {cm / cf:5.2f}"
    )


# -- import -------------------------------------------------------------------------------


def bench_import(count: int, runs: int) -> None:
    try:
        import pandas
    except ImportError:
        print("import   pandas is not installed: no baseline")
        return
    with tempfile.TemporaryDirectory(prefix="pixiu-import-bench-") as tmp:
        folder = Path(tmp) / "bars"
        write_histories(folder, codes(count), with_actions=False)
        files = sorted(folder.iterdir())
        pixiu_cpu, pandas_cpu, walls = [], [], []
        for run in range(runs):
            env = clean_env(Path(tmp) / f"home{run}")
            env["PIXIU_NOW"] = PINNED
            wall, cpu, code = process([*COMMAND, "data", "import", str(folder), "--no-refresh"], env)
            if code:
                raise SystemExit("pixiu data import failed")
            started = time.process_time()
            for path in files:
                pandas.read_csv(path)
            pandas_cpu.append(time.process_time() - started)
            pixiu_cpu.append(cpu)
            walls.append(wall)
        rows = sum(len(p.read_text().splitlines()) - 1 for p in files)
    p, b = statistics.median(pixiu_cpu), statistics.median(pandas_cpu)
    print(
        f"import   data import DIR ({count} files, {rows:,} bars) {p:6.2f} s cpu (wall {statistics.median(walls):.2f})  "
        f"pandas.read_csv {b:5.2f} s cpu  {verdict(p / b, 3.0)}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=("sync", "refresh", "import"))
    parser.add_argument("--quick", action="store_true", help="tiny sizes (the smoke test)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--src", help="the pixiu source tree to measure (default: this one)")
    args = parser.parse_args(argv)
    q = args.quick
    sections = {
        "sync": lambda: bench_sync(3 if q else 20, 60 if q else 10_000, 1 if q else args.runs),
        "refresh": lambda: bench_refresh(6 if q else 500, 60 if q else 5_000, 3 if q else 100, 1 if q else args.runs),
        "import": lambda: bench_import(5 if q else 500, 1 if q else min(args.runs, 3)),
    }
    for name, run in sections.items():
        if args.only in (None, name):
            run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
