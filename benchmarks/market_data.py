"""Market data: importing daily bars, reading an adjusted series, and what valuation adds to
building a context block — each against a baseline measured in the same run.

Data: N symbols × Y years of synthetic daily bars (a seeded random walk on the shipped calendar's sessions, two
corporate actions per symbol: a 10派5 dividend and a 10送3 bonus issue), written as CSV
files in a temp dir. Everything goes through pixiu's real code and a real SQLite file made
by `open_database`.

    import    `import_csv` for every file (parse, gap check, one transaction per symbol)
              baseline: the csv module reading the same files into float tuples
              (and pandas.read_csv, when pandas is installed)
    read      `MarketData.bars(symbol, "qfq", start, end)`: one symbol's last 3 years,
              front-adjusted on read from its whole stored history
              baseline: the csv module reading that symbol's file (pandas too, if installed)
    context   `ContextBuilder.context_block` for a question naming one of 20 holdings,
              with the valuation of the holdings section on (the workspace's account handle, which
              derives again only when the ledger, holdings, stored bars or the session date change) and
              off (no account handle); the figure with the valuation recomputed on every call is
              printed too

Printed: medians and ratios (pixiu / baseline). Goals, printed and never asserted: reading
one adjusted series ≤ 3× reading its CSV; the valued context block ≤ 1.5× the unvalued one.

Run:  python benchmarks/market_data.py [--symbols 500] [--years 10] [--reps 20] [--quick]
"""

from __future__ import annotations

import argparse
import csv
import random
import statistics
import sys
import tempfile
import time
from datetime import date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pixiu_cli.account.handle import Account  # noqa: E402
from pixiu_cli.account.overview import read_account  # noqa: E402
from pixiu_cli.conversation.context.builder import SHANGHAI, ContextBuilder  # noqa: E402
from pixiu_cli.conversation.store import ConversationStore  # noqa: E402
from pixiu_cli.home.store import InvestorStore  # noqa: E402
from pixiu_cli.kernel.store.database import open_database  # noqa: E402
from pixiu_cli.market.data import MarketData  # noqa: E402
from pixiu_cli.market.handle import Market  # noqa: E402
from pixiu_cli.market.importer import import_csv  # noqa: E402
from pixiu_cli.market.store import MarketStore, SecurityMaster  # noqa: E402
from pixiu_cli.market.trading_days import is_trading_day  # noqa: E402


class _Uncached(Account):
    """The account derived again on every read: what the handle's cache saves."""

    def read(self, now):
        return read_account(self, now)


END = date(2026, 6, 15)
NOW = datetime(2026, 6, 16, 16, 0, tzinfo=SHANGHAI)
READ_GOAL = 3.0
CONTEXT_GOAL = 1.5


def write_files(folder: Path, symbols: int, years: int, seed: int = 7) -> list[tuple[str, Path, Path]]:
    rng = random.Random(seed)
    start = END.replace(year=END.year - years)
    days = [start + timedelta(days=i) for i in range((END - start).days + 1)]
    days = [d for d in days if is_trading_day(d)]  # sessions of the shipped calendar: an import refuses the rest
    out = []
    for n in range(symbols):
        code = f"{600000 + n:06d}"
        price = rng.uniform(5, 80)
        events = {days[len(days) // 3]: (0.5, 0.0), days[2 * len(days) // 3]: (0.0, 0.3)}
        lines = ["date,open,high,low,close,volume,amount"]
        for d in days:
            if d in events:  # the ex-rights day opens at the reference price
                cash, shares = events[d]
                price = (price - cash / 10) / (1 + shares)
            o = price * (1 + rng.uniform(-0.01, 0.01))
            c = max(0.5, price * (1 + rng.uniform(-0.05, 0.05)))
            h, lo = max(o, c) * 1.01, min(o, c) * 0.99
            v = rng.randint(100_000, 50_000_000)
            lines.append(f"{d.isoformat()},{o:.2f},{h:.2f},{lo:.2f},{c:.2f},{v},{v * c:.2f}")
            price = c
        bars, actions = folder / f"{code}.csv", folder / f"{code}_actions.csv"
        bars.write_text("\n".join(lines) + "\n")
        actions.write_text(
            "ex_date,cash_per_share,shares_per_share\n"
            + "".join(f"{d.isoformat()},{cash / 10},{shares}\n" for d, (cash, shares) in events.items())
        )
        out.append((code, bars, actions))
    return out


def csv_read(path: Path) -> list[tuple]:
    with path.open(newline="") as handle:
        reader = csv.reader(handle)
        next(reader)
        return [(r[0], float(r[1]), float(r[2]), float(r[3]), float(r[4]), float(r[5])) for r in reader]


def pandas_reader():
    try:
        import pandas
    except ImportError:
        return None
    return lambda path: pandas.read_csv(path)


def timed(fn, reps: int) -> float:
    """Median milliseconds of `reps` calls (after one warm-up call)."""
    fn()
    samples = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t) * 1000)
    return statistics.median(samples)


def bench_import(files, db_path: Path) -> tuple[float, float, float | None, int]:
    t = time.perf_counter()
    for _, bars, _ in files:
        csv_read(bars)
    baseline = (time.perf_counter() - t) * 1000
    reader = pandas_reader()
    pandas_ms = None
    if reader:
        t = time.perf_counter()
        for _, bars, _ in files:
            reader(bars)
        pandas_ms = (time.perf_counter() - t) * 1000
    db = open_database(db_path)
    market, master = MarketStore(db), SecurityMaster(db)
    rows = 0
    t = time.perf_counter()
    for code, bars, actions in files:
        rows += import_csv(
            market, master, bars, code, at=NOW.isoformat(), name=f"股票{code}", actions_path=actions
        ).rows
    pixiu_ms = (time.perf_counter() - t) * 1000
    db.close()
    return pixiu_ms, baseline, pandas_ms, rows


def bench_read(files, db_path: Path, reps: int) -> tuple[float, float, float | None, int]:
    code, bars_path, _ = files[len(files) // 2]
    db = open_database(db_path)
    data = MarketData(Market(db))
    start = END.replace(year=END.year - 3).isoformat()
    series = data.bars(code, "qfq", start, END.isoformat())
    pixiu_ms = timed(lambda: data.bars(code, "qfq", start, END.isoformat()), reps)
    baseline = timed(lambda: csv_read(bars_path), reps)
    reader = pandas_reader()
    pandas_ms = timed(lambda: reader(bars_path), reps) if reader else None
    db.close()
    return pixiu_ms, baseline, pandas_ms, len(series)


def bench_context(files, db_path: Path, reps: int) -> tuple[float, float]:
    db = open_database(db_path)
    domain = InvestorStore(db)
    held = files[:20]
    db["holdings"].insert_all(
        [
            {
                "symbol": code,
                "name": f"股票{code}",
                "short_names": "[]",
                "shares": 1000,
                "cost": 10.0,
                "role": "core",
                "updated_at": "2020-01-02T10:00:00+08:00",
            }
            for code, _, _ in held
        ],
        replace=True,
    )
    store = ConversationStore(db)
    question = f"股票{held[3][0]}最近怎么样"
    plain = ContextBuilder(store, domain)
    valued = ContextBuilder(store, domain, account=Account(db))
    cold = ContextBuilder(store, domain, account=_Uncached(db))
    assert "浮动盈亏" in valued.context_block(question, now=NOW)[0].text
    off = timed(lambda: plain.context_block(question, now=NOW), reps)
    on = timed(lambda: valued.context_block(question, now=NOW), reps)
    recomputed = timed(lambda: cold.context_block(question, now=NOW), reps)
    db.close()
    return on, off, recomputed


def fmt(ms: float | None) -> str:
    return "n/a" if ms is None else f"{ms:.1f} ms"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--symbols", type=int, default=500)
    parser.add_argument("--years", type=int, default=10)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="20 symbols × 4 years, 5 repetitions")
    args = parser.parse_args()
    if args.quick:
        args.symbols, args.years, args.reps = 20, 4, 5
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = write_files(folder, args.symbols, args.years)
        db_path = folder / "pixiu.db"
        pixiu_ms, csv_ms, pandas_ms, rows = bench_import(files, db_path)
        print(
            f"data      {args.symbols} symbols × {args.years} years = {rows:,} bars; "
            f"db {db_path.stat().st_size / 1e6:.1f} MB"
        )
        print(
            f"import    pixiu {fmt(pixiu_ms)} ({rows / pixiu_ms * 1000:,.0f} bars/s)  csv-module {fmt(csv_ms)}  "
            f"pandas {fmt(pandas_ms)}  ratio {pixiu_ms / csv_ms:.2f}"
            + (f"  vs-pandas {pixiu_ms / pandas_ms:.2f}" if pandas_ms else "")
        )
        read_ms, read_csv, read_pandas, n = bench_read(files, db_path, args.reps)
        print(
            f"read      median pixiu {fmt(read_ms)} ({n} qfq bars of 3 years)  csv-module {fmt(read_csv)}  "
            f"pandas {fmt(read_pandas)}  ratio {read_ms / read_csv:.2f}  goal <= {READ_GOAL:.2f}  "
            f"{'OK' if read_ms / read_csv <= READ_GOAL else 'MISSED'}"
        )
        on, off, recomputed = bench_context(files, db_path, args.reps)
        print(
            f"context   median valued {fmt(on)}  unvalued {fmt(off)}  ratio {on / off:.2f}  "
            f"goal <= {CONTEXT_GOAL:.2f}  {'OK' if on / off <= CONTEXT_GOAL else 'MISSED'}  "
            f"(valuation recomputed every turn: {fmt(recomputed)}, ratio {recomputed / off:.2f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
