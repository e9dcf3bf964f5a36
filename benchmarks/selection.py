"""Context selection cost with a large security master.

The same generated database as `context_assembly.py` (500 holdings, N memory events), then
5,000 securities written into the security master (synthetic four-character names, each
with a short name, plus 200 user aliases), as a market-data sync would. In one warm
process, `build_messages(None, question, now=NOW)` is timed for each question

    baseline   the security master empty: only the holdings' names are known
    names      5,000 securities and 200 aliases known

and the figures printed side by side with their ratio. Also printed: `select()` alone
(normalise + Aho–Corasick + codes + intent cues), the one-off cost of building the name
table after the master changes, and the first traditional-Chinese message (OpenCC is
imported lazily). Goal, printed and never asserted: at 1 million events each question
≤ 5 ms with 5,000 names known. Exits 0.

Run:  python benchmarks/selection.py [--events 1000000] [--names 5000] [--reps 40] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from context_assembly import NOW, generate, holding_rows  # noqa: E402

from pixiu_cli.conversation.context.builder import ContextBuilder  # noqa: E402
from pixiu_cli.conversation.context.memory_classes import MemoryLimits  # noqa: E402
from pixiu_cli.conversation.store import ConversationStore  # noqa: E402
from pixiu_cli.home.store import InvestorStore  # noqa: E402
from pixiu_cli.kernel.store.database import open_database  # noqa: E402
from pixiu_cli.market.securities import Security  # noqa: E402
from pixiu_cli.market.store import SecurityMaster  # noqa: E402

GOAL_MS = 5.0
SYLLABLES = "安宝北博昌辰成诚达大德东方丰福港光广国海汉航和恒宏华环汇佳建江金锦京晶景巨凯康科蓝力联隆美明南宁鹏启庆仁瑞润山上深盛"


def synthetic_securities(count: int, taken: set[str]) -> list[Security]:
    rows, i = [], 0
    n = len(SYLLABLES)
    while len(rows) < count:
        a, b, c, d = (i % n, (i // n) % n, (i // n // n) % n, (i * 7) % n)
        i += 1
        code = f"{(300000 + i) if i % 2 else (2000 + i):06d}"
        name = SYLLABLES[a] + SYLLABLES[b] + SYLLABLES[c] + "科技"[d % 2]
        if code in taken or name in taken:
            continue
        taken.update((code, name))
        rows.append(Security(code, name, "stock", source="benchmark"))
    return rows


def questions(holdings: list[dict], securities: list[Security]) -> dict[str, str]:
    alias = holdings[312]["short_names"].strip('[]"')
    return {
        "symbols": f"{holdings[7]['name']}和{alias}最近的走势怎么看？有什么新消息吗？",
        "known": f"{securities[123].name}最近的走势怎么看？有什么新消息吗？",
        "portfolio": "我的持仓里哪几只适合做核心仓，哪几只该减？",
        "mixed": f"我的账户整体风险大吗，特别是{holdings[40]['name']}",
    }


def median_ms(fn, reps: int) -> float:
    samples = []
    for _ in range(reps):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def run(path: Path, names: int, reps: int) -> list[str]:
    db = open_database(path)
    out = []
    try:
        builder = ContextBuilder(ConversationStore(db), InvestorStore(db), MemoryLimits())
        holdings = holding_rows()
        securities = synthetic_securities(names, {h["symbol"] for h in holdings} | {h["name"] for h in holdings})
        qs = questions(holdings, securities)
        for q in qs.values():  # warm: tokenizer, memos, the holdings-only name table
            builder.build_messages(None, q, now=NOW)
        baseline = {k: median_ms(lambda q=q: builder.build_messages(None, q, now=NOW), reps) for k, q in qs.items()}

        master = SecurityMaster(db)
        master.upsert(securities)
        for s in securities[:200]:
            master.add_alias(s.name[:2] + "王", s.symbol, source="user")
        started = time.perf_counter()
        builder.build_messages(None, qs["symbols"], now=NOW)
        rebuild_ms = (time.perf_counter() - started) * 1000
        with_names = {k: median_ms(lambda q=q: builder.build_messages(None, q, now=NOW), reps) for k, q in qs.items()}
        select_ms = {k: median_ms(lambda q=q: builder.select(q), reps) for k, q in qs.items()}
        started = time.perf_counter()
        builder.select("我的持倉裡哪隻最穩")
        traditional_ms = (time.perf_counter() - started) * 1000
        traditional_warm = median_ms(lambda: builder.select("我的持倉裡哪隻最穩"), reps)

        for key in qs:
            ms, base = with_names[key], baseline[key]
            if key == "known":  # unknown in the baseline run: a different block, no ratio
                out.append(
                    f"{key:<10}median {ms:6.2f} ms with {names:,} names  (a name only the master knows; "
                    f"select() {select_ms[key] * 1000:.0f} us)  goal <= {GOAL_MS:g} ms  "
                    f"{'OK' if ms <= GOAL_MS else 'MISSED'}"
                )
                continue
            ok = "OK" if ms <= GOAL_MS else "MISSED"
            intent = builder.select(qs[key]).intent.value
            out.append(
                f"{key:<10}median {ms:6.2f} ms with {names:,} names  baseline {base:6.2f} ms (holdings only)  "
                f"ratio {ms / base:4.2f}  select() {select_ms[key] * 1000:6.0f} us  intent {intent}  "
                f"goal <= {GOAL_MS:g} ms  {ok}"
            )
        out.append(f"name table rebuilt after the master changed: first build {rebuild_ms:.1f} ms (once per change)")
        out.append(
            f"traditional text: first message {traditional_ms:.1f} ms (OpenCC imported lazily), "
            f"then {traditional_warm * 1000:.0f} us"
        )
    finally:
        db.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--names", type=int, default=5_000)
    parser.add_argument("--reps", type=int, default=40)
    parser.add_argument("--quick", action="store_true", help="1 thousand events, few repetitions")
    args = parser.parse_args(argv)
    events, reps = (1_000, 5) if args.quick else (args.events, max(3, args.reps))
    with tempfile.TemporaryDirectory(prefix="pixiu-sel-") as tmp:
        path = Path(tmp) / "selection.db"
        started = time.perf_counter()
        generate(path, events)
        print(f"data     {events:,} events + 500 holdings generated in {time.perf_counter() - started:.1f} s")
        for line in run(path, args.names, reps):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
