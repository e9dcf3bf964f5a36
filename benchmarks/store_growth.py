"""What the store costs as a conversation grows: database bytes per turn over the whole run
and over turns 201-300 (issue 42's row), `/cache` time at 12 and at N turns, the time to load
a turn's history, and SQL statements per turn.

The app is composed as `pixiu chat --demo` composes it (`open_app`, offline mode, the
demo portfolio) in a fresh PIXIU_HOME, and one conversation runs --turns turns against
the in-process offline server; every third turn makes one tool call (get_holdings) and
then answers, as a portfolio question does. Each figure is printed next to a baseline
measured in the same run on the same data:

    db bytes/turn  today: the database file's growth over the run (checkpointed and
                   vacuumed, less the file before the first turn) divided by the
                   turns. baseline: a copy of that same database with every request
                   rewritten as plain JSON text in request_json and every turn's
                   messages and block summary as plain JSON (the base layout; one
                   copy, so a lower bound of the old cost).
    db growth/turn the same, from a copy taken after --window turns (200) to the end
                   (300): what each turn adds once a conversation is long. Under it,
                   the bytes those turns stored in the widest columns.
    /cache         today: cache.report.build_report, which reads the explanation each
                   call stored when it finished. baseline: the same report with the
                   stored explanations cleared, so each is worked out again by
                   re-tokenising two requests per call (the old path).
    history        (medians of 7) today: history_messages for the next turn after a summary that
                   covers all but the last 10 turns (the turns are filtered in SQL).
                   baseline: every turn of the conversation read and parsed, then
                   filtered in Python (the old `turns(conversation)` loop).
    statements     SQL statements (sqlite3 trace callback) in one tool-using turn and
                   in one plain turn, today; SAVEPOINTs counted separately.

Goals (printed, never asserted; the script exits 0): <= 12 KB per turn over the run, <= 10 KB
per turn over turns 201-300, /cache <= 0.2 s.

Run:  python benchmarks/store_growth.py [--turns 300] [--window 200] [--quick]
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `python benchmarks/store_growth.py` from a checkout
    sys.path.insert(0, str(ROOT))

from pixiu_cli.account.explain import wait_for_explanations  # noqa: E402
from pixiu_cli.account.report import PriceTable, build_report  # noqa: E402
from pixiu_cli.app import open_app  # noqa: E402
from pixiu_cli.conversation.agent.loop import SilentSink  # noqa: E402
from pixiu_cli.conversation.context.builder import history_messages  # noqa: E402
from pixiu_cli.conversation.offline.script import ScriptedReply, ToolCallSpec  # noqa: E402
from pixiu_cli.conversation.store import ConversationStore, _turn, add_request_function  # noqa: E402
from pixiu_cli.kernel.settings import load_settings  # noqa: E402

GOAL_BYTES = 12 * 1024
GOAL_WINDOW_BYTES = 10 * 1024
GOAL_CACHE_S = 0.2
HISTORY_RUNS = 7
WIDEST = (
    "calls.request_z",
    "calls.request_json",
    "calls.context_json",
    "calls.context_z",
    "calls.reply_text",
    "calls.cache_explanation_json",
    "turns.messages_json",
    "turns.messages_z",
    "turns.block_json",
    "turns.reply_text",
)
QUESTIONS = (
    "茅台最近怎么看？估值贵不贵？",
    "我的持仓里哪几只适合做核心仓？",
    "招行的分红和股价走势怎么样？",
    "宁德时代涨了这么多，要不要先止盈一部分？",
    "今天大盘怎么样，有什么需要注意的？",
)
REPLY = (
    "先说结论：维持现有仓位，不追高也不急着卖。\n\n"
    "1. 估值：当前处于近五年中位数附近，安全边际一般，继续持有的理由主要是现金流和分红的稳定性。\n"
    "2. 计划：按你之前定下的纪律，单只仓位不超过总资产的 25%，目前没有触发减仓条件。\n"
    "3. 风险：关注下周的股东大会和行业政策，如果跌破年线，再按计划分批处理。\n"
)


class Trace:
    def __init__(self, conn: sqlite3.Connection):
        self.statements: list[str] = []
        conn.set_trace_callback(self.statements.append)

    def counts(self) -> tuple[int, int]:
        savepoints = sum(1 for s in self.statements if s.lstrip().upper().startswith(("SAVEPOINT", "RELEASE")))
        return len(self.statements), savepoints


def run_turn(app, server, conversation: int, i: int) -> None:
    if i % 3 == 2:
        server.enqueue(ScriptedReply(tool_calls=[ToolCallSpec("get_holdings", "{}")]), ScriptedReply(text=REPLY))
    else:
        server.enqueue(ScriptedReply(text=REPLY))
    result = app.agent.run_turn(conversation, QUESTIONS[i % len(QUESTIONS)], SilentSink())
    if result.status != "complete":
        raise SystemExit(f"turn {i} did not complete: {result.status} {result.error}")


def compact_size(path: Path) -> int:
    con = sqlite3.connect(path)
    con.execute("pragma wal_checkpoint(truncate)")
    con.execute("vacuum")
    # pages in use, not the file's length: another open connection can delay the shrink
    size = con.execute("pragma page_count").fetchone()[0] * con.execute("pragma page_size").fetchone()[0]
    con.close()
    return size


def baseline_size(path: Path, copy: Path) -> int:
    """The same data in the base layout: each request as plain text in request_json, each
    turn's messages and each block summary as plain JSON text."""
    shutil.copy(path, copy)
    con = sqlite3.connect(copy)
    add_request_function(con)
    con.execute("update calls set request_json = call_request(id)")
    con.execute("update calls set request_z = null, request_base = null")
    for table, plain, packed in (("turns", "messages_json", "messages_z"), ("calls", "context_json", "context_z")):
        if packed in {row[1] for row in con.execute(f"pragma table_info({table})")}:
            con.execute(f"update {table} set {plain} = coalesce(unpacked({packed}), {plain}), {packed} = null")
    con.commit()
    con.close()
    return compact_size(copy)


def column_bytes(conn: sqlite3.Connection, conversation: int, after_seq: int) -> list[tuple[str, int]]:
    """Bytes stored in the widest columns by the turns after after_seq (and their calls)."""
    sizes = []
    for name in WIDEST:
        table, column = name.split(".")
        if column not in {row[1] for row in conn.execute(f"pragma table_info({table})")}:
            continue
        turn = "id" if table == "turns" else "turn_id"
        size = conn.execute(
            f"select coalesce(sum(length(cast({column} as blob))), 0) from {table} where {turn} in "
            "(select id from turns where conversation_id = ? and seq > ?)",
            [conversation, after_seq],
        ).fetchone()[0]
        sizes.append((name, size))
    return [pair for pair in sizes if pair[1]]


def cache_seconds(store: ConversationStore, conversation: int, stored: bool) -> float:
    prices = PriceTable()
    if not stored:
        store.db.conn.execute("begin")
        store.db.conn.execute("update calls set cache_explanation_json = null")
    try:
        started = time.perf_counter()
        build_report(store, conversation, prices)
        return time.perf_counter() - started
    finally:
        if not stored:
            store.db.conn.execute("rollback")


def history_seconds(store: ConversationStore, conversation: int, last: int) -> tuple[float, float]:
    """Medians of HISTORY_RUNS, today and baseline interleaved (one read is well under a
    millisecond: a single one is mostly the machine's noise)."""
    after = max(last - 10, 0)
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(HISTORY_RUNS):
        started = time.perf_counter()
        today = history_messages(store, conversation, before_seq=last + 1, after_seq=after)
        times[0].append(time.perf_counter() - started)
        started = time.perf_counter()
        rows = store.db.conn.execute("select * from turns where conversation_id = ? order by seq", [conversation])
        names = [d[0] for d in rows.description]
        old = [
            m
            for t in (_turn(dict(zip(names, r))) for r in rows.fetchall())
            if after < t.seq <= last
            for m in t.messages
        ]
        times[1].append(time.perf_counter() - started)
        assert len(old) == len(today)
    return statistics.median(times[0]), statistics.median(times[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--window", type=int, default=200, help="growth is also reported after this many turns")
    parser.add_argument("--quick", action="store_true", help="a small run (14 turns) to check the script works")
    args = parser.parse_args(argv)
    turns = 14 if args.quick else max(args.turns, 12)
    window_start = 7 if args.quick else min(args.window, turns - 1)
    with tempfile.TemporaryDirectory(prefix="pixiu-store-") as tmp:
        app = open_app(load_settings(home=Path(tmp) / "home", force_offline=True), demo=True)
        server = app._offline_server.server  # started now: open_app leaves it to the first use
        try:
            conversation = app.store.create_conversation(model=app.settings.model).id
            store = app.store
            db_path = Path(store.db.conn.execute("pragma database_list").fetchone()[2])
            store.db.conn.execute("pragma wal_checkpoint(truncate)")
            shutil.copy(db_path, Path(tmp) / "empty.db")
            traced: dict[str, tuple[int, int]] = {}
            cache12 = None
            for i in range(turns):
                if i == window_start:
                    wait_for_explanations()
                    store.db.conn.execute("pragma wal_checkpoint(truncate)")
                    shutil.copy(db_path, Path(tmp) / "window.db")
                trace = Trace(store.db.conn) if i in (10, 11) else None
                run_turn(app, server, conversation, i)
                if trace:
                    traced["tool" if i % 3 == 2 else "plain"] = trace.counts()
                    store.db.conn.set_trace_callback(None)
                if i == 11:
                    wait_for_explanations()
                    cache12 = (cache_seconds(store, conversation, True), cache_seconds(store, conversation, False))
            wait_for_explanations()
            cacheN = (cache_seconds(store, conversation, True), cache_seconds(store, conversation, False))
            hist = history_seconds(store, conversation, turns)
            columns = column_bytes(store.db.conn, conversation, window_start)
        finally:
            app.close()
            store.db.conn.close()
        empty = compact_size(Path(tmp) / "empty.db")
        today_size = compact_size(db_path) - empty
        base_size = baseline_size(db_path, Path(tmp) / "baseline.db") - empty
        window = compact_size(Path(tmp) / "window.db") - empty
        base_window = baseline_size(Path(tmp) / "window.db", Path(tmp) / "window-baseline.db") - empty
    per_turn, base_per_turn = today_size / turns, base_size / turns
    ok = "OK" if per_turn <= GOAL_BYTES else "MISSED"
    print(
        f"db bytes/turn   today {per_turn / 1024:8.1f} KB  baseline {base_per_turn / 1024:8.1f} KB  "
        f"ratio {per_turn / base_per_turn:.2f}  goal <= {GOAL_BYTES // 1024} KB  {ok}  (turns 1-{turns})"
    )
    span = turns - window_start
    grown, base_grown = (today_size - window) / span, (base_size - base_window) / span
    ok = "OK" if grown <= GOAL_WINDOW_BYTES else "MISSED"
    print(
        f"db growth/turn  today {grown / 1024:8.1f} KB  baseline {base_grown / 1024:8.1f} KB  "
        f"ratio {grown / base_grown:.2f}  goal <= {GOAL_WINDOW_BYTES // 1024} KB  {ok}  "
        f"(turns {window_start + 1}-{turns})"
    )
    print("  stored per turn " + ", ".join(f"{name} {size / span / 1024:.1f} KB" for name, size in columns))
    for label, (now, before) in (("/cache 12", cache12), (f"/cache {turns}", cacheN)):
        ok = "OK" if now <= GOAL_CACHE_S else "MISSED"
        print(f"{label:<15} today {now:8.3f} s   baseline {before:8.3f} s   goal <= {GOAL_CACHE_S} s  {ok}")
    print(
        f"history         today {hist[0] * 1000:8.2f} ms  baseline {hist[1] * 1000:8.2f} ms  (last 10 of {turns} turns)"
    )
    for kind, (count, savepoints) in sorted(traced.items()):
        print(f"statements      {kind} turn {count} SQL statements, {savepoints} SAVEPOINT/RELEASE")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
