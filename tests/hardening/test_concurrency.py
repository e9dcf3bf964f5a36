"""Concurrency: several pixiu processes write one database at the same time.

* two writers, each a separate OS process that imports pixiu and runs what
  `pixiu ask --continue` runs (`pick_conversation(..., continue_latest=True)` then
  `Agent.run_turn`) 200 times through the real SDK and HTTP against the offline server,
  both on the latest conversation, so they race for the next seq of the same conversation;
  every fifth turn states a plan, the server's responder answers with a `remember` tool
  call, so tool writes and a second model call happen inside those turns;
* the real `pixiu ask --continue --json` console script in a shell loop;
* `/remember` typed into a REPL (`pixiu chat`) in a pseudo-terminal, over and over, while
  the writers run;
* `pixiu import` of a data set while all of that runs;
* a slow tool: in one writer every fourth plan's near-duplicate check is slowed past the
  tool timeout, so its `remember` is abandoned mid-flight — that note must never appear,
  the model must be told so, and the turn must complete like any other.

A second test holds the write lock from another process past the busy timeout: `pixiu ask`
and a REPL `/remember` each say so in one line (no traceback), and work once it is free.

Afterwards: every turn and every call is there and complete, seq numbers are unique and
gapless per conversation, every note exists exactly once, the database is intact, no
process ever showed "database is locked" or a traceback, and no writer's `--continue`
ever marked a turn another writer was still answering as interrupted (a trigger records
every pending → interrupted change, which the final rows cannot show).

Turns per writer come from PIXIU_STRESS_TURNS (default 40, CI-sized; the attack run used
200). At 200: 405 turns, ~560 calls (405 first calls, 80 after a tool call, ~80 history
summaries), ~270 REPL notes and 80 tool notes; its run time is in benchmarks/README.md.
"""

from __future__ import annotations

import io
import json
import os
import random
import sqlite3
import string
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest

from pixiu_cli.conversation.store import ConversationStore, add_request_function
from pixiu_cli.kernel.store.database import open_database
from tests.helpers import PIXIU_BIN, PROMPT, say, spawn

TURNS_PER_WRITER = int(os.environ.get("PIXIU_STRESS_TURNS", "40"))
PLAN_EVERY = 5
SLOW_EVERY = 4  # of writer 乙's plans, every fourth one's duplicate check outlives the tool timeout
ASK_LOOP_TURNS = 5
FORBIDDEN = ("database is locked", "database is busy", "Traceback", "OperationalError", "locked")

# One writer process: the body of `pixiu ask --continue --json`, TURNS times, in one process.
WRITER = r"""
import dataclasses, json, random, string, sys, threading, time
from pixiu_cli.conversation.agent.loop import SilentSink
from pixiu_cli.app import open_app
from pixiu_cli.conversation.ask import pick_conversation
from pixiu_cli.kernel.settings import load_settings
from pixiu_cli.memory import store as memory

name, turns, plan_every, go = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
slow_every = int(sys.argv[5])
rng = random.Random(name)
app = open_app(load_settings())
if slow_every:
    # A slow tool: the duplicate check of a note marked 慢 outlives the tool timeout. The
    # timeout is long enough that every other remember, waiting its turn for the write lock
    # on a loaded machine, still finishes inside it.
    app.agent.guardrails = dataclasses.replace(app.agent.guardrails, tool_timeout=3.0)
    real, slowed = memory.same_memory, set()

    def same_memory(a, b):
        if "慢" in a.text and a.text not in slowed:
            slowed.add(a.text)
            time.sleep(4.0)
        return real(a, b)

    memory.same_memory = same_memory
while time.time() < go:
    time.sleep(0.002)
started = time.monotonic()
plans = 0
for i in range(turns):
    conversation_id = pick_conversation(app.store, None, True)
    if i % plan_every == plan_every - 1:
        tag = "".join(rng.choice(string.ascii_lowercase) for _ in range(16))
        plans += 1
        slow = bool(slow_every) and plans % slow_every == 0
        text = f"我打算等{tag}{'慢慢' if slow else ''}再分批加仓"
    else:
        text = f"{name} 的第 {i} 个问题：仓位怎么样？"
    asked_at = time.time()
    result = app.agent.run_turn(conversation_id, text, SilentSink())
    print(json.dumps({"writer": name, "i": i, "text": text, "conversation_id": result.conversation_id,
                      "seq": result.seq, "status": result.status, "error": result.error, "calls": result.calls,
                      "notices": list(result.notices), "t": asked_at}, ensure_ascii=False), flush=True)
for thread in threading.enumerate():  # an abandoned tool thread runs on: it tries (and fails) to commit
    if thread.name.startswith("tool-"):
        thread.join(60)
app.close()
print(json.dumps({"writer": name, "done": True, "seconds": round(time.monotonic() - started, 2)}), flush=True)
"""


def random_tag(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(16))


def assert_clean(label: str, text: str) -> None:
    for bad in FORBIDDEN:
        assert bad not in text, f"{label} showed {bad!r}:\n{text[-3000:]}"


@pytest.mark.pty
@pytest.mark.slow
@pytest.mark.timeout(300)
def test_two_writers_an_ask_loop_and_a_repl_share_one_database(server, online_env, pixiu_home, tmp_path):
    # a smaller history budget: shorter requests, and a history summary written every ~15
    # turns by whichever writer gets there, racing the other one
    (pixiu_home / "config.toml").write_text("[context]\nhistory_budget_tokens = 6000\n", encoding="utf-8")
    db = open_database(pixiu_home / "pixiu.db")
    conversation_id = ConversationStore(db).create_conversation(title="并发").id
    # Every `--continue` reopens the conversation while the other writers are mid-turn: a
    # turn must never be marked interrupted while its process is still answering it (it
    # would be overwritten when that process finishes, so only a trigger can see it).
    db.execute("create table test_marked_live (turn_id integer, owner text)")
    db.execute(
        "create trigger test_marked_live after update of status on turns "
        "when old.status = 'pending' and new.status = 'interrupted' "
        "begin insert into test_marked_live values (new.id, new.owner); end"
    )
    db.close()

    go = time.time() + 2.5  # every writer has imported pixiu and opened the database by then
    writers, logs = [], []
    for name in ("甲", "乙"):
        out, err = tmp_path / f"writer-{name}.out", tmp_path / f"writer-{name}.err"
        logs.append((name, out, err))
        writers.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    WRITER,
                    name,
                    str(TURNS_PER_WRITER),
                    str(PLAN_EVERY),
                    str(go),
                    str(SLOW_EVERY if name == "乙" else 0),
                ],
                env=online_env,
                cwd=Path(__file__).resolve().parents[2],
                stdout=out.open("wb"),
                stderr=err.open("wb"),
            )
        )
    ask_out, ask_err = tmp_path / "ask-loop.out", tmp_path / "ask-loop.err"
    ask_loop = subprocess.Popen(
        [
            "bash",
            "-c",
            f'sleep 3; for i in $(seq {ASK_LOOP_TURNS}); do "{PIXIU_BIN}" ask --continue --json '
            f'"命令行第 $i 问：现在的仓位合适吗？" || echo "EXIT $?" >&2; done',
        ],
        env=online_env,
        stdout=ask_out.open("wb"),
        stderr=ask_err.open("wb"),
    )

    # an import while everyone writes (a file without notes: under replace semantics notes
    # made before it may go, under merge semantics none do; notes made after it must stay)
    dataset = tmp_path / "import.json"
    dataset.write_text(
        (Path(__file__).resolve().parents[1] / "fixtures" / "small_portfolio.json").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    doc = json.loads(dataset.read_text(encoding="utf-8"))
    doc["notes"] = []
    dataset.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    import_out, import_err = tmp_path / "import.out", tmp_path / "import.err"
    importer = subprocess.Popen(
        ["bash", "-c", f'sleep 4; "{PIXIU_BIN}" import "{dataset}"; echo "EXIT $?"'],
        env=online_env,
        stdout=import_out.open("wb"),
        stderr=import_err.open("wb"),
    )

    rng = random.Random(7)
    notes: list[tuple[str, float]] = []
    transcript = io.StringIO()
    started = time.monotonic()
    repl = spawn(online_env)
    repl.logfile_read = transcript
    try:
        repl.expect(PROMPT)
        while time.time() < go:
            time.sleep(0.05)
        # keep remembering while anybody is still writing, and at least 30 times
        while len(notes) < 30 or any(w.poll() is None for w in writers) or ask_loop.poll() is None:
            note = f"笔记{random_tag(rng)}"
            asked_at = time.time()
            say(repl, f"/remember {note}")
            repl.expect(r"(已记住|已合并到已有记忆|已有相同记忆) #n(\d+)", timeout=60)
            assert repl.match.group(1) == "已记住", note
            repl.expect(PROMPT)
            notes.append((note, asked_at))
            time.sleep(0.05)
            assert time.monotonic() - started < 240, "the writers did not finish"
        say(repl, "/exit")
        repl.expect(pexpect.EOF)
    finally:
        if repl.isalive():
            repl.terminate(force=True)
        importer.wait(timeout=60)
        for proc in (*writers, ask_loop, importer):
            if proc.poll() is None:
                proc.kill()
    elapsed = time.monotonic() - started

    # --- every process's output ------------------------------------------------------------
    assert_clean("the REPL", transcript.getvalue())
    results = []
    for (name, out, err), proc in zip(logs, writers):
        assert_clean(f"writer {name} (stderr)", err.read_text())
        assert_clean(f"writer {name} (stdout)", out.read_text())
        assert proc.returncode == 0, err.read_text()[-3000:]
        lines = [json.loads(line) for line in out.read_text().splitlines()]
        assert lines[-1]["done"]
        results += lines[:-1]
    assert_clean("pixiu import", import_out.read_text() + import_err.read_text())
    assert "已合并导入" in import_out.read_text() and "EXIT 0" in import_out.read_text(), import_err.read_text()
    imported_at = import_out.stat().st_mtime
    assert_clean("pixiu ask (stderr)", ask_err.read_text())
    assert_clean("pixiu ask (stdout)", ask_out.read_text())
    asked = [json.loads(line) for line in ask_out.read_text().splitlines()]
    assert ask_loop.returncode == 0 and len(asked) == ASK_LOOP_TURNS
    assert all(a["status"] == "complete" and a["conversation_id"] == conversation_id for a in asked)

    assert len(results) == 2 * TURNS_PER_WRITER
    assert all(r["status"] == "complete" and r["error"] is None for r in results), [
        r for r in results if r["status"] != "complete"
    ][:3]
    assert {r["conversation_id"] for r in results} == {conversation_id}
    plans = [r for r in results if r["text"].startswith("我打算")]
    assert len(plans) == 2 * TURNS_PER_WRITER // PLAN_EVERY and all(r["calls"] == 2 for r in plans)
    slow = [r for r in plans if "慢慢" in r["text"]]
    assert len(slow) == TURNS_PER_WRITER // PLAN_EVERY // SLOW_EVERY > 0
    assert all(not r["notices"] for r in slow)  # nobody was told it was remembered
    assert all(r["notices"] and r["notices"][0].startswith("已记住 #n") for r in plans if r not in slow)

    # --- the database -----------------------------------------------------------------------
    total_turns = 2 * TURNS_PER_WRITER + ASK_LOOP_TURNS
    con = sqlite3.connect(pixiu_home / "pixiu.db")
    add_request_function(con)
    try:
        assert con.execute("pragma integrity_check").fetchone() == ("ok",)
        assert con.execute("pragma foreign_key_check").fetchall() == []
        turns = con.execute(
            "select conversation_id, seq, user_text, status from turns order by conversation_id, seq"
        ).fetchall()
        steps = dict(con.execute("select step, count(*) from calls group by step").fetchall())
        call_status = dict(con.execute("select status, count(*) from calls group by status").fetchall())
        orphans = con.execute(
            "select count(*) from calls c left join turns t on t.id = c.turn_id "
            "where t.id is null or t.conversation_id != c.conversation_id"
        ).fetchone()[0]
        note_rows = con.execute(
            "select text, source, count(*) from memory_events where kind = 'user_note' "
            "and deleted_at is null group by text, source"
        ).fetchall()
        slow_told = [
            json.loads(r[0])
            for r in con.execute(
                "select call_request(id) from calls where step = 1 and call_request(id) like '%慢慢%'"
            ).fetchall()
        ]
        total_calls = con.execute("select count(*) from calls").fetchone()[0]
        marked_live = con.execute("select count(*) from test_marked_live").fetchone()[0]
        errors = con.execute(
            "select (select count(*) from turns where error is not null) + "
            "(select count(*) from calls where error is not null)"
        ).fetchone()[0]
    finally:
        con.close()

    assert len(turns) == total_turns
    assert {t[0] for t in turns} == {conversation_id}
    assert [t[1] for t in turns] == list(range(1, total_turns + 1))  # unique and gapless
    assert all(t[3] == "complete" for t in turns)
    assert sorted(t[2] for t in turns) == sorted(
        [r["text"] for r in results] + [f"命令行第 {i} 问：现在的仓位合适吗？" for i in range(1, ASK_LOOP_TURNS + 1)]
    )
    assert sorted((r["conversation_id"], r["seq"]) for r in results) == sorted(
        set((r["conversation_id"], r["seq"]) for r in results)
    )
    assert steps[0] == total_turns  # one first call per turn
    assert steps[1] == len(plans)  # and the answer after each remember call
    assert call_status == {"complete": total_calls}, call_status
    assert orphans == 0
    assert errors == 0
    assert marked_live == 0, f"{marked_live} turns were marked interrupted while their process was answering"
    by_text = {text: (source, count) for text, source, count in note_rows}
    for note, asked_at in notes:
        expected = [("user", 1)] if asked_at > imported_at else [("user", 1), None]
        assert by_text.get(note) in expected, note
    for plan in plans:
        if plan in slow:
            assert plan["text"] not in by_text, plan["text"]  # the abandoned tool never committed
        else:
            assert by_text.get(plan["text"]) in ([("model", 1)] if plan["t"] > imported_at else [("model", 1), None])
    assert len(note_rows) <= len(notes) + len(plans) - len(slow)
    # the model was told the truth about each abandoned remember
    tool_results = [m["content"] for body in slow_told for m in body["messages"] if m["role"] == "tool"]
    assert sum("超时" in c and "没有保存" in c for c in tool_results) >= len(slow)

    seconds = {
        line["writer"]: line["seconds"]
        for _, out, _ in logs
        for line in map(json.loads, out.read_text().splitlines())
        if line.get("done")
    }
    print(
        f"\nconcurrency: {total_turns} turns, {total_calls} calls ({steps}), {len(notes)} REPL notes, "
        f"{len(plans)} tool notes, writers {seconds} s, whole run {elapsed:.1f} s"
    )


HOLDER = r"""
import sqlite3, sys
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("begin immediate")
print("held", flush=True)
sys.stdin.readline()  # until the test lets go: a fixed hold could end before a slow-starting waiter gave up
con.execute("rollback")
print("released", flush=True)
"""


@pytest.mark.pty
@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_write_lock_held_past_the_busy_timeout_is_one_clear_line(server, online_env, pixiu_home):
    from pixiu_cli.conversation.offline.script import ScriptedReply

    server.enqueue(ScriptedReply(text="一"))
    first = subprocess.run([PIXIU_BIN, "ask", "--json", "第一问"], env=online_env, capture_output=True, timeout=60)
    assert first.returncode == 0, first.stderr.decode()
    repl = spawn(online_env)
    transcript = io.StringIO()
    repl.logfile_read = transcript
    repl.expect(PROMPT)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(pixiu_home / "pixiu.db")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        ask = subprocess.Popen(
            [PIXIU_BIN, "ask", "--continue", "锁住时的问题"],
            env=online_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        say(repl, "/remember 锁住时的笔记")
        repl.expect("数据库正被另一个 pixiu 进程占用", timeout=40)
        repl.expect(PROMPT)
        out, err = ask.communicate(timeout=40)
        waited = time.monotonic() - started
        lines = err.decode().strip().splitlines()
        assert ask.returncode == 1 and len(lines) == 1 and "数据库正被另一个 pixiu 进程占用" in lines[0], err.decode()
        # the question was on disk before pixiu waited on the lock, and the line says where
        (kept,) = (pixiu_home / "unsent").glob("*.txt")
        assert str(kept) in lines[0] and kept.read_text(encoding="utf-8") == "锁住时的问题"
        assert "Traceback" not in err.decode() + out.decode()
        assert waited >= 14  # it waited the busy timeout before giving up
        holder.stdin.write("\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "released"
    finally:
        if holder.poll() is None:
            holder.kill()
    # once the lock is free everything works again, in the same REPL and in a new process
    say(repl, "/remember 锁释放后的笔记")
    repl.expect(r"已记住 #n\d+")
    repl.expect(PROMPT)
    say(repl, "/exit")
    repl.expect(pexpect.EOF)
    assert "Traceback" not in transcript.getvalue() and "OperationalError" not in transcript.getvalue()
    server.enqueue(ScriptedReply(text="二"))
    again = subprocess.run(
        [PIXIU_BIN, "ask", "--continue", "--json", "第二问"], env=online_env, capture_output=True, timeout=60
    )
    assert again.returncode == 0 and json.loads(again.stdout)["status"] == "complete"
    assert [p.name for p in (pixiu_home / "unsent").glob("*.txt")] == [kept.name]  # a sent question leaves nothing
    con = sqlite3.connect(pixiu_home / "pixiu.db")
    add_request_function(con)
    try:
        notes = [r[0] for r in con.execute("select text from memory_events where kind = 'user_note'")]
        statuses = [r[0] for r in con.execute("select status from turns order by id")]
    finally:
        con.close()
    assert notes == ["锁释放后的笔记"]
    assert statuses == ["complete", "complete"]
