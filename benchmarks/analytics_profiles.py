"""Backtest profiles for many symbols: 500 symbols × 3 years × 4 strategies through the real
engine and SQLite store, against a baseline measured in the same run (reading the same bars
back from SQLite, the floor any profile computation pays).

    .venv/bin/python benchmarks/analytics_profiles.py [--symbols 500] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from datetime import date, datetime, timedelta
from pathlib import Path

from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.analytics.costs import CostModel
from pixiu_cli.market.analytics.profiles import profile_symbol
from pixiu_cli.market.analytics.store import AnalyticsStore
from pixiu_cli.market.bars import Bar, SeriesWrite
from pixiu_cli.market.calendar import SHANGHAI
from pixiu_cli.market.data import MarketData
from pixiu_cli.market.handle import Market
from pixiu_cli.market.store import MarketStore
from pixiu_cli.market.trading_days import is_trading_day


def trading_days(start: date, end: date) -> list[str]:
    days, day = [], start
    while day <= end:
        if is_trading_day(day):
            days.append(day.isoformat())
        day += timedelta(days=1)
    return days


def synthetic_bars(seed: int, days: list[str]) -> list[Bar]:
    rng, price, bars = random.Random(seed), 10 + seed % 90, []
    for day in days:
        open_ = price * (1 + rng.gauss(0, 0.005))
        close = max(1.0, open_ * (1 + rng.gauss(0.0003, 0.02)))
        bars.append(
            Bar(
                day,
                round(open_, 2),
                round(max(open_, close) * 1.01, 2),
                round(min(open_, close) * 0.99, 2),
                round(close, 2),
                1e6,
            )
        )
        price = close
    return bars


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--symbols", type=int, default=500)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    now = datetime(2025, 6, 3, 16, 0, tzinfo=SHANGHAI)
    days = trading_days(date(2021, 6, 1), date(2025, 5, 30))  # 3 years plus a year of warm-up
    with tempfile.TemporaryDirectory() as tmp:
        db = open_database(Path(tmp) / "bench.db")
        market = MarketStore(db)
        symbols = [f"{600000 + i:06d}" for i in range(args.symbols)]
        for i, symbol in enumerate(symbols):
            market.write_series(SeriesWrite(symbol, synthetic_bars(i, days), source="bench", at=now.isoformat()))
        data, store, costs = MarketData(Market(db)), AnalyticsStore(db), CostModel()

        start = time.perf_counter()
        for symbol in symbols:
            market.bars(symbol, days[0], days[-1])
        read = time.perf_counter() - start

        start = time.perf_counter()
        for symbol in symbols:
            rows, profile = profile_symbol(data, symbol, now, costs)
            store.save_profile(rows, profile)
        profiles = time.perf_counter() - start
        db.close()
    result = {
        "symbols": args.symbols,
        "bars_per_symbol": len(days),
        "strategies": 4,
        "read_bars_s": round(read, 3),
        "profiles_s": round(profiles, 3),
        "per_symbol_ms": round(profiles / args.symbols * 1000, 2),
        "ratio_to_reading": round(profiles / read, 1),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{args.symbols} symbols × {len(days)} bars × 4 strategies: profiles {profiles:.2f} s "
            f"({result['per_symbol_ms']} ms a symbol, stored); reading the same bars back {read:.2f} s; "
            f"ratio {result['ratio_to_reading']}×"
        )


if __name__ == "__main__":
    main()
