"""What a 1,000,000-row statement import cannot go below, whatever pixiu's import does:
the parts it cannot leave out, each timed alone with every advantage, against the same
`pandas.read_csv` baseline as `statement_scale.py` (issue 42's statement row, goal ≤ 3×).

    read      the file's rows by the csv module (in C), the garbage collector off
    store     those rows, unchecked, into a 16-column table of a new SQLite file (WAL), one
              executemany in one transaction: less than the fills table with its keys
    derive    the ledger's one derivation (`ledger.position`, Decimal) of each stock over its
              buys and sells, what `pixiu holdings` after the import needs kept or redone

Nothing here checks a row, classifies an operation, matches a fill already stored or writes
a checkpoint: the real import does all of that on top. The baseline is timed both ways the
row's figure could be read: a process (`python -c "import pandas; pandas.read_csv(F)"`, as
`statement_scale.py` times it) and the read alone inside this process.

Run:  python benchmarks/statement_floor.py [--rows 1000000] [--file F] [--quick]
"""

from __future__ import annotations

import argparse
import csv
import gc
import os
import sqlite3
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from statement_scale import IMPORT_GOAL, env_for, pandas_baseline, run_child, write_statement  # noqa: E402

from pixiu_cli.account import ledger  # noqa: E402
from pixiu_cli.account.model import BUY, SELL, Fill  # noqa: E402

KINDS = {"买入": BUY, "卖出": SELL}


def timed(work):
    started = time.process_time()
    result = work()
    return time.process_time() - started, result


def read_rows(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8-sig", newline="") as f:
        return list(csv.reader(f))[1:]


def store_rows(rows: list[list[str]], folder: Path) -> None:
    conn = sqlite3.connect(folder / "floor.db", isolation_level=None)
    conn.execute("pragma journal_mode = wal")
    conn.execute(f"create table raw ({', '.join(f'c{i}' for i in range(16))})")
    conn.execute("begin")
    conn.executemany(f"insert into raw values ({', '.join('?' * 16)})", rows)
    conn.execute("commit")
    conn.close()


def fills_by_stock(rows: list[list[str]]) -> dict[str, list[Fill]]:
    """The buys and sells as Fills, built plainly: only their derivation is timed, and the
    product's reader checks every row (the cost this floor leaves out)."""
    stocks: dict[str, list[Fill]] = defaultdict(list)
    for i, r in enumerate(rows):
        kind = KINDS.get(r[4])
        if kind is None:
            continue
        day = f"{r[0][:4]}-{r[0][4:6]}-{r[0][6:]}"
        fees = float(r[8]) + float(r[9]) + float(r[10]) + float(r[11])
        code = r[2].strip('="')
        fill = Fill(str(i), day, r[1], kind, code, r[3], float(r[5]), float(r[6]), float(r[7]), fees, None, None)
        stocks[code].append(fill)
    return stocks


def derive(stocks: dict[str, list[Fill]]) -> int:
    return sum(1 for symbol, fills in stocks.items() if ledger.position(symbol, fills).held)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--file", help="a statement written by statement_scale.py (default: write one)")
    parser.add_argument("--quick", action="store_true", help="2,000 rows: does the script still run?")
    args = parser.parse_args()
    if args.quick:
        args.rows = 2000
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = Path(args.file) if args.file else folder / "交割单.csv"
        if not args.file:
            write_statement(path, args.rows)
        process = run_child(pandas_baseline(path), env_for(folder / "none"))[1]
        gc.disable()  # every part below, and pandas' read, without the collector's passes
        import pandas

        alone, _ = timed(lambda: pandas.read_csv(path))
        read, rows = timed(lambda: read_rows(path))
        store, _ = timed(lambda: store_rows(rows, folder))
        stocks = fills_by_stock(rows)
        fills = sum(map(len, stocks.values()))
        derived, held = timed(lambda: derive(stocks))
        size = os.path.getsize(path) / 2**20
    floor = read + store + derived
    print(
        f"statement {len(rows):,} rows ({size:.0f} MiB), {fills:,} buys and sells of {len(stocks)} stocks ({held} held)"
    )
    print(f"pandas    process {process:6.2f} s CPU (the row's baseline)   read alone {alone:6.2f} s CPU")
    print(f"read      {read:6.2f} s CPU   csv.reader, every row")
    print(f"store     {store:6.2f} s CPU   one executemany of the raw rows")
    print(f"derive    {derived:6.2f} s CPU   ledger.position per stock ({derived / max(fills, 1) * 1e6:.1f} µs a fill)")
    for name, base in (("process", process), ("read alone", alone)):
        print(
            f"floor     {floor:6.2f} s CPU = {floor / base:5.2f}× pandas ({name}); derive alone {derived / base:5.2f}×;"
            f" store + derive {(store + derived) / base:5.2f}×  (goal ≤ {IMPORT_GOAL}×)"
        )


if __name__ == "__main__":
    main()
