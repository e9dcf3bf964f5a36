"""Context assembly time (`ContextBuilder.build_messages`) against a growing memory.

For each size — 1 thousand, 100 thousand and 1 million memory events — a real SQLite
file is generated through `open_database` (so every migration and index is there) and
filled in one transaction with executemany:

    500 holdings, each with two backtest profiles (an old and a current one), a persona;
    the events, spread uniformly over five years before the benchmark's fixed "now", so
    almost all of them are old:
        user notes (memory_events, kind user_note)   40 %   (2 % of them forgotten)
        decision events (memory_events, kind decision) 20 %
        news                                          20 %
        fusion signals                                 8 %
        trade decisions (decisions table)              8 %
        alerts                                         3 %
        reports                                        1 %

Then, in this warm process (the tokenizer loaded, each question built a few times first),
`build_messages(None, question, now=NOW)` is timed for two questions:

    symbols    a question that names two holdings (one by name, one by its short name)
    portfolio  a portfolio question (all 500 holdings' profiles are candidates)

Then a conversation: the two questions asked in turns (each turn stored as the agent
stores it), so the next `build_messages(conversation, question)` reads the history and
takes the delta path (earlier blocks in the history, unchanged sections only named);
that build is timed the same way for each question.

Printed: the median per question and size (and per question in the conversation), the ratio to the 1-thousand figure, a
breakdown of the 1-million figure (SQL and section building vs rendering and token
budgeting, plus a cold first build), and the query plan of every statement the builder
issued (any full-table scan is named). Goals, printed and never asserted: at 1 million
events each question ≤ 5 ms and ≤ 1.5× its 1-thousand figure. Exits 0.

Run:  python benchmarks/context_assembly.py [--sizes 1000,100000,1000000] [--reps 40]
      [--quick] [--plans]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `python benchmarks/context_assembly.py` from a checkout
    sys.path.insert(0, str(ROOT))

from pixiu_cli.conversation.context.block import assemble  # noqa: E402
from pixiu_cli.conversation.context.builder import SHANGHAI, ContextBuilder, scene_fragment  # noqa: E402
from pixiu_cli.conversation.context.memory_classes import MemoryAssembler, MemoryLimits  # noqa: E402
from pixiu_cli.conversation.selection.intent import Intent, detect_intent  # noqa: E402
from pixiu_cli.conversation.selection.select import extract_symbols  # noqa: E402
from pixiu_cli.conversation.store import ConversationStore  # noqa: E402
from pixiu_cli.home.store import InvestorStore  # noqa: E402
from pixiu_cli.kernel.store.database import open_database  # noqa: E402
from pixiu_cli.market.names.table import Holder  # noqa: E402

NOW = datetime(2026, 6, 16, 10, 30, tzinfo=SHANGHAI)  # a Tuesday, during the session
YEARS = 5
HOLDINGS = 500
GOAL_MS = 5.0
GOAL_RATIO = 1.5
SIZES = (1_000, 100_000, 1_000_000)
SHARES = (
    ("note", 0.40),
    ("event", 0.20),
    ("news", 0.20),
    ("signal", 0.08),
    ("decision", 0.08),
    ("alert", 0.03),
    ("report", 0.01),
)

PLACES = (
    "华光",
    "东岳",
    "南山",
    "北辰",
    "西岭",
    "中原",
    "海天",
    "江淮",
    "长城",
    "天目",
    "金陵",
    "蜀道",
    "燕山",
    "湘江",
    "闽江",
    "黄河",
    "昆仑",
    "太行",
    "洞庭",
    "珠江",
    "松花",
    "青藏",
    "云贵",
    "渤海",
    "秦岭",
)
TRADES = (
    "电子",
    "医药",
    "银行",
    "证券",
    "保险",
    "地产",
    "能源",
    "电力",
    "汽车",
    "家电",
    "食品",
    "酒业",
    "化工",
    "钢铁",
    "有色",
    "建材",
    "传媒",
    "通信",
    "软件",
    "机械",
)
NOTE_TEXTS = (
    "跌破年线就减半仓，不要犹豫。",
    "这只是长期核心仓，季报不及预期也不急着卖。",
    "估值回到历史中位数以下再加仓。",
    "消息面利好已经兑现，追高要小心。",
    "分红率稳定，适合放在底仓里吃股息。",
    "单只仓位不要超过总资产的百分之十五。",
    "等回调到二十日均线附近再分批买入。",
    "行业景气度下行，先观望一个季度。",
)
NEWS_TITLES = (
    "发布年度业绩预告",
    "获得重大订单",
    "股东减持计划公告",
    "入选行业龙头名单",
    "回购股份进展公告",
    "高管变动公告",
)


def holding_rows() -> list[dict]:
    rows = []
    for i in range(HOLDINGS):
        place, trade = PLACES[i % len(PLACES)], TRADES[i // len(PLACES)]
        code = f"{600000 + 3 * i:06d}" if i < HOLDINGS // 2 else f"{1 + 3 * (i - HOLDINGS // 2):06d}"
        rows.append(
            {
                "symbol": code,
                "name": place + trade,
                "short_names": json.dumps([place + trade[0]], ensure_ascii=False),
                "shares": float(100 * (1 + i % 50)),
                "cost": round(5 + (i * 7.31) % 200, 2),
                "role": "core" if i % 3 == 0 else "satellite",
                "updated_at": (NOW - timedelta(days=i % 90)).isoformat(timespec="seconds"),
            }
        )
    return rows


def generate(path: Path, events: int, seed: int = 7) -> dict:
    """A fresh database at `path` with `events` events; returns what was written."""
    rng = random.Random(seed)
    db = open_database(path)
    conn = db.conn
    holdings = holding_rows()
    symbols = [h["symbol"] for h in holdings]
    span = YEARS * 365 * 86400

    def stamp() -> str:  # uniform over the last YEARS years
        return (NOW - timedelta(seconds=rng.randrange(span))).isoformat(timespec="seconds")

    counts = {kind: int(events * share) for kind, share in SHARES}
    counts["note"] += events - sum(counts.values())
    conn.execute("BEGIN")
    conn.executemany(
        "insert into holdings (symbol, name, short_names, shares, cost, role, updated_at) "
        "values (:symbol, :name, :short_names, :shares, :cost, :role, :updated_at)",
        holdings,
    )
    conn.executemany(
        "insert into profiles (symbol, strategy, period, annual_return, max_drawdown, win_rate, sharpe, best_role, "
        "conclusion, as_of) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                s,
                "均线趋势（MA20/MA60）",
                "近5年（日线，前复权）",
                rng.uniform(-0.1, 0.3),
                -rng.uniform(0.1, 0.5),
                rng.uniform(0.35, 0.65),
                rng.uniform(-0.5, 1.8),
                rng.choice(("core", "satellite")),
                "趋势策略回撤偏大，长期持有优于频繁择时。",
                (NOW - timedelta(days=days)).isoformat(timespec="seconds"),
            )
            for s in symbols
            for days in (400, 1 + symbols.index(s) % 20)
        ],
    )
    conn.executemany(
        "insert into persona (key, value) values (?, ?)",
        [
            ("risk_label", "稳健型"),
            ("horizon", "中长期（1–3年）"),
            ("style", "核心+卫星，低频持有"),
            ("constraints", "单只个股仓位不超过总资产的25%；不融资融券"),
        ],
    )
    conn.executemany(
        "insert into memory_events (kind, note_kind, symbol, text, created_at, source, author, deleted_at, "
        "inject_count) values ('user_note', ?, ?, ?, ?, 'user', 'user', ?, 0)",
        (
            (
                rng.choice(("view", "plan", "rule")),
                rng.choice(symbols) if rng.random() < 0.7 else None,
                rng.choice(NOTE_TEXTS),
                stamp(),
                "2026-01-01T00:00:00+08:00" if rng.random() < 0.02 else None,
            )
            for _ in range(counts["note"])
        ),
    )
    conn.executemany(
        "insert into memory_events (kind, symbol, text, created_at, source, inject_count) "
        "values ('decision', ?, ?, ?, 'tool', 0)",
        (
            (s, f"买入 {s} 100 股 @ {rng.uniform(5, 200):.2f}", stamp())
            for s in (rng.choice(symbols) for _ in range(counts["event"]))
        ),
    )
    conn.executemany(
        "insert into news (symbol, title, summary, source, layer, published_at) values (?, ?, ?, ?, ?, ?)",
        (
            (rng.choice(symbols), rng.choice(NEWS_TITLES), "公司公告，详见交易所网站。", "交易所公告", "事实", stamp())
            for _ in range(counts["news"])
        ),
    )
    conn.executemany(
        "insert into signals (symbol, score, direction, components, as_of) values (?, ?, ?, ?, ?)",
        (
            (
                rng.choice(symbols),
                rng.uniform(-60, 60),
                rng.choice(("bullish", "neutral", "bearish")),
                '{"趋势": -20, "资金流向": 15, "估值": 45}',
                stamp(),
            )
            for _ in range(counts["signal"])
        ),
    )
    conn.executemany(
        "insert into decisions (symbol, side, price, quantity, reason, decided_at, source) "
        "values (?, ?, ?, ?, ?, ?, 'user')",
        (
            (
                rng.choice(symbols),
                rng.choice(("buy", "sell")),
                rng.uniform(5, 200),
                100.0 * rng.randint(1, 20),
                "按计划分批操作。",
                stamp(),
            )
            for _ in range(counts["decision"])
        ),
    )
    conn.executemany(
        "insert into alerts (symbol, rule, message, triggered_at) values (?, ?, ?, ?)",
        ((rng.choice(symbols), "收盘价 ≤ 年线", "接近你设定的加仓计划位。", stamp()) for _ in range(counts["alert"])),
    )
    conn.executemany(
        "insert into reports (title, symbols, conclusion, created_at) values (?, ?, ?, ?)",
        (("持仓组合周度体检", "[]", "核心仓占比合理，卫星仓波动偏大。", stamp()) for _ in range(counts["report"])),
    )
    conn.execute("COMMIT")
    conn.execute("ANALYZE")
    db.close()
    return {"holdings": holdings, "counts": counts}


def questions(holdings: list[dict]) -> dict[str, str]:
    first, second = holdings[7], holdings[312]
    alias = json.loads(second["short_names"])[0]
    return {
        "symbols": f"{first['name']}和{alias}最近的走势怎么看？有什么新消息吗？",
        "portfolio": "我的持仓里哪几只适合做核心仓，哪几只该减？",
    }


def median_ms(fn, reps: int) -> float:
    samples = []
    for _ in range(reps):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


_LITERAL = re.compile(r"'(?:[^']|'')*'|\b\d+(?:\.\d+)?\b")


def traced_plans(db, run) -> list[tuple[str, list[str]]]:
    """Every distinct statement `run()` issues, with its EXPLAIN QUERY PLAN. Statements
    that differ only in their literals (one per symbol) count once."""
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    try:
        run()
    finally:
        db.conn.set_trace_callback(None)
    plans, seen = [], set()
    for sql in statements:
        shape = _LITERAL.sub("?", sql)
        if not sql.lstrip().lower().startswith("select") or shape in seen:
            continue
        seen.add(shape)
        rows = db.conn.execute("explain query plan " + sql).fetchall()
        plans.append((shape, [row[-1] for row in rows]))
    return plans


def full_scans(plan: list[str]) -> list[str]:
    """Plan lines that read a whole table (small tables named in ALLOWED_SCANS excepted;
    a VIRTUAL TABLE scan is json_each over a parameter, not a table)."""
    return [
        line
        for line in plan
        if line.startswith("SCAN ") and not line.startswith(ALLOWED_SCANS) and "VIRTUAL TABLE" not in line
    ]


# holdings (500 rows, all of them wanted), persona (a handful) and the watch list (every
# watched stock is named like a holding) are read whole on purpose
ALLOWED_SCANS = ("SCAN holdings", "SCAN persona", "SCAN watchlist")


def forget_remembered() -> None:
    """Empty pixiu's in-process memos (token counts of lines, quoted labels), so the next
    build is a first build in a fresh process, less loading the tokenizer."""
    import functools
    import gc

    for obj in gc.get_objects():
        if isinstance(obj, functools._lru_cache_wrapper) and getattr(obj, "__module__", "").startswith("pixiu_cli"):
            obj.cache_clear()


def measure(path: Path, qs: dict[str, str], reps: int) -> dict:
    db = open_database(path)
    try:
        builder = ContextBuilder(ConversationStore(db), InvestorStore(db), MemoryLimits())
        out: dict = {"ms": {}, "tokens": {}, "cold_ms": {}}
        for key, question in qs.items():
            forget_remembered()
            started = time.perf_counter()
            built = builder.build_messages(None, question, now=NOW)
            out["cold_ms"][key] = (time.perf_counter() - started) * 1000
            out["tokens"][key] = (
                built.context_block.tokens,
                len(built.context_block.omitted),
                built.intent.value,
                len(built.symbols),
            )
            for _ in range(3):
                builder.build_messages(None, question, now=NOW)
        # interleave the questions so a noisy moment hits both alike
        samples: dict[str, list[float]] = {key: [] for key in qs}
        for _ in range(reps):
            for key, question in qs.items():
                started = time.perf_counter()
                builder.build_messages(None, question, now=NOW)
                samples[key].append((time.perf_counter() - started) * 1000)
        out["ms"] = {key: statistics.median(v) for key, v in samples.items()}

        # breakdown: the same steps as ContextBuilder.context_block, timed apart
        domain, limits = builder.domain, builder.limits
        out["breakdown"] = {}
        for key, question in qs.items():
            box: list = []

            def select(force_intent=None, question=question, box=box):
                holdings = domain.holdings()
                names = [Holder(h.symbol, h.name, h.short_names) for h in holdings]
                symbols = extract_symbols(question, names)
                intent = force_intent or detect_intent(question, symbols)
                box[:] = [
                    MemoryAssembler(domain, limits).sections(
                        now=NOW,
                        symbols=symbols,
                        intent=intent,
                        holdings=holdings,
                        summary=None,
                        scene=scene_fragment(intent),
                    )
                ]

            select()
            sections = box[0]
            sections_ms = median_ms(select, reps)
            overview = next((s for s in sections if s.key == "portfolio_profiles"), None)
            out["breakdown"][key] = {
                "sections_ms": sections_ms,
                # the portfolio overview (every holding's profile): the same sections without it
                "overview_ms": sections_ms - median_ms(lambda: select(Intent.GENERAL), reps) if overview else None,
                "assemble_ms": median_ms(lambda sections=sections: assemble(sections, limits.budget_tokens), reps),
                "items": sum(len(s.items) for s in sections),
                "largest": sorted(((len(s.items), s.key) for s in sections), reverse=True)[:2],
            }
        out["conversation"] = measure_conversation(builder, qs, reps)
        out["plans"] = []
        for question in qs.values():
            out["plans"].extend(traced_plans(db, lambda q=question: builder.build_messages(None, q, now=NOW)))
        return out
    finally:
        db.close()


CONVERSATION_TURNS = 6


def measure_conversation(builder: ContextBuilder, qs: dict[str, str], reps: int) -> dict:
    """The next turn of a conversation of CONVERSATION_TURNS stored turns, per question:
    the median build, the block's tokens and how many sections it sent as unchanged."""
    store = builder.store
    conversation = store.create_conversation().id
    asked = list(qs.values())
    for i in range(CONVERSATION_TURNS):
        question = asked[i % len(asked)]
        turn = store.start_turn(conversation, question)
        built = builder.build_messages(conversation, question, before_seq=turn.seq, now=NOW + timedelta(minutes=i))
        added = built.messages[1 + built.history_count :] + [{"role": "assistant", "content": "好的。"}]
        store.finish_turn(
            turn.id, status="complete", reply_text="好的。", messages=added, block=built.block_record(added)
        )
    later = NOW + timedelta(minutes=CONVERSATION_TURNS)
    out: dict = {"ms": {}, "blocks": {}}
    for key, question in qs.items():
        built = builder.build_messages(conversation, question, now=later)
        block = built.context_block
        out["blocks"][key] = (block.tokens, len(block.unchanged), built.history_count)
        out["ms"][key] = median_ms(lambda q=question: builder.build_messages(conversation, q, now=later), reps)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="event counts, comma-separated")
    parser.add_argument("--reps", type=int, default=40, help="timed builds per question and size")
    parser.add_argument("--quick", action="store_true", help="1 thousand events only, few repetitions")
    parser.add_argument("--plans", action="store_true", help="print every query plan, not only full scans")
    args = parser.parse_args(argv)
    sizes = [1_000] if args.quick else sorted(int(s) for s in args.sizes.split(","))
    reps = 5 if args.quick else max(3, args.reps)
    qs = questions(holding_rows())

    results: dict[int, dict] = {}
    with tempfile.TemporaryDirectory(prefix="pixiu-ctx-") as tmp:
        for size in sizes:
            path = Path(tmp) / f"events-{size}.db"
            started = time.perf_counter()
            generate(path, size)
            took = time.perf_counter() - started
            mb = path.stat().st_size / 1e6
            results[size] = measure(path, qs, reps)
            print(f"data     {size:>9,} events + {HOLDINGS} holdings generated in {took:5.1f} s ({mb:.0f} MB)")
            for suffix in ("", "-wal", "-shm"):
                Path(str(path) + suffix).unlink(missing_ok=True)

    base, top = sizes[0], sizes[-1]
    for key in qs:
        for size in sizes:
            r = results[size]
            ms = r["ms"][key]
            tokens, omitted, intent, nsym = r["tokens"][key]
            line = (
                f"{key:<10}{size:>9,} events  median {ms:6.2f} ms  ratio to {base:,}: "
                f"{ms / results[base]['ms'][key]:4.2f}  (block {tokens} tokens, {omitted} sections trimmed, "
                f"intent {intent}, {nsym} symbols)"
            )
            if size == top and top >= 1_000_000:
                ok = ms <= GOAL_MS and ms / results[base]["ms"][key] <= GOAL_RATIO
                line += f"  goal <= {GOAL_MS:g} ms and <= {GOAL_RATIO:g}x  {'OK' if ok else 'MISSED'}"
            elif size == top:
                line += f"  goal <= {GOAL_MS:g} ms and <= {GOAL_RATIO:g}x at 1,000,000 events: not measured"
            print(line)
    for key in qs:
        for size in sizes:
            ms = results[size]["conversation"]["ms"][key]
            tokens, unchanged, history = results[size]["conversation"]["blocks"][key]
            print(
                f"conversation {key:<10}{size:>9,} events  median {ms:6.2f} ms  (turn {CONVERSATION_TURNS + 1}: "
                f"{history} history messages, block {tokens} tokens, {unchanged} sections unchanged)"
            )
    for size in sorted({base, top}):
        for key in qs:
            b = results[size]["breakdown"][key]
            largest = ", ".join(f"{k} {n}" for n, k in b["largest"])
            overview = f" (portfolio overview {b['overview_ms']:.2f} ms of it)" if b["overview_ms"] is not None else ""
            print(
                f"breakdown {key:<10}{size:>9,} events  sections: SQL + items {b['sections_ms']:5.2f} ms{overview}; "
                f"assemble: render + token budget {b['assemble_ms']:5.2f} ms; {b['items']} items before trimming "
                f"(largest: {largest}); first build with empty memos {results[size]['cold_ms'][key]:.0f} ms"
            )
    plans = results[top]["plans"]
    scans = [(sql, full_scans(plan)) for sql, plan in plans if full_scans(plan)]
    print(
        f"plans    {len(plans)} distinct queries at {top:,} events, "
        f"{len(scans)} with a full-table scan{': ' if scans else ''}"
        + "; ".join(f"{' / '.join(s)} in {sql[:60]}" for sql, s in scans)
    )
    if args.plans:
        for sql, plan in plans:
            print(f"  {sql}\n    " + "\n    ".join(plan))
    return 0


if __name__ == "__main__":
    sys.exit(main())
