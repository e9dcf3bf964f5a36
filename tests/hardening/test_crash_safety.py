"""Crash safety: pixiu is killed with SIGKILL in the middle of a streamed reply, or in the
middle of a tool call (the model asked for a tool, the tool ran, and the follow-up reply
is streaming or has not started). Nothing can be caught or flushed on SIGKILL, so what
survives is exactly what was committed before the kill.

After a restart:
* ``PRAGMA integrity_check`` is ``ok``;
* every earlier turn and the user's last message are in the database;
* the cut-off turn is marked ``interrupted`` (``--continue`` / ``--resume`` / ``/resume``);
* the part of the reply that had arrived is kept on that turn (a prefix of what was sent:
  the loop saves the streamed text every PARTIAL_SAVE_SECONDS, so at most that much of
  what was shown is lost);
* ``pixiu ask --continue`` and ``pixiu chat --continue`` resume the conversation: the next
  request carries the completed turns, then the interrupted user message with the partial
  reply (or nothing of that turn when no reply text had arrived), and never a dangling
  tool call or two user questions in a row.

Both the one-shot command and the REPL are run in a pseudo-terminal, as a user runs them.
Two narrower tests: a Ctrl-C that lands right after BEGIN IMMEDIATE leaves no transaction
open, and reopening a conversation leaves a turn alone while another live process is
still answering it.
"""

from __future__ import annotations

import io
import json
import signal
import sqlite3
import time
from pathlib import Path

import pexpect
import pytest

from pixiu_cli.conversation.offline.script import Fault, ScriptedReply, ToolCallSpec
from pixiu_cli.conversation.store import add_request_function
from tests.helpers import PIXIU_BIN, PROMPT, pixiu_in_process, say, spawn

SLOW = "这是一段很慢的流式回复，用来在中途杀掉进程。" * 40
CONTEXT_MARKER = "[上下文信息]"
NOTE = "回踩三十元再分批加仓海康"
LONG_ASK = "讲个长的，顺便记下：" + NOTE  # the note is the user's words: the model may write it


def slow_reply(**kw) -> ScriptedReply:
    # ~12 s in all: plenty of time to be killed half-way
    return ScriptedReply(text=SLOW, chunk_chars=2, chunk_delay=0.03, **kw)


def tool_reply() -> ScriptedReply:
    args = json.dumps({"kind": "plan", "text": NOTE}, ensure_ascii=False)
    return ScriptedReply(text="", tool_calls=[ToolCallSpec("remember", args)])


# --- helpers ----------------------------------------------------------------------------


def open_db(home: Path) -> sqlite3.Connection:
    db = sqlite3.connect(home / "pixiu.db")
    add_request_function(db)  # unpacked(): the turns' packed messages as text
    return db


def wait_for(predicate, timeout=15.0, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def wait_for_saved_partial(home: Path) -> None:
    """The streamed text on disk, a real marker instead of a pause: a loaded machine may take
    longer than any fixed pause to reach the loop's first partial save."""

    def saved():
        db = open_db(home)
        try:
            row = db.execute("select reply_text from calls where status = 'pending' order by id desc").fetchone()
        finally:
            db.close()
        return row and row[0]

    wait_for(saved, timeout=60, what="the partial save of the streamed reply")


def sigkill(child: pexpect.spawn) -> None:
    child.kill(signal.SIGKILL)
    child.wait()
    assert child.signalstatus == signal.SIGKILL


def well_formed(messages: list[dict]) -> None:
    """What a strict OpenAI-compatible API accepts: the system prompt first, every tool call
    answered by a tool message, every tool message answering a call, no two user questions
    in a row (a [上下文信息] block is a user message that precedes its question), and the
    request ends with the user's question."""
    assert messages[0]["role"] == "system"
    open_calls: set[str] = set()
    previous = "system"
    for message in messages[1:]:
        role = message["role"]
        if role == "tool":
            assert message["tool_call_id"] in open_calls, message
            open_calls.discard(message["tool_call_id"])
            continue
        assert not open_calls, f"tool calls never answered: {open_calls}"
        if role == "assistant":
            open_calls = {c["id"] for c in message.get("tool_calls") or []}
        if role == "user" and message["content"].startswith(CONTEXT_MARKER):
            continue
        assert not (role == "user" and previous == "user"), "two user questions in a row"
        previous = role
    assert not open_calls
    assert messages[-1]["role"] == "user" and not messages[-1]["content"].startswith(CONTEXT_MARKER)


def dialogue(messages: list[dict]) -> list[tuple[str, str]]:
    """The request without the system prompt, context blocks and tool plumbing."""
    return [
        (m["role"], m["content"])
        for m in messages[1:]
        if m["role"] in ("user", "assistant")
        and not m.get("tool_calls")
        and not m["content"].startswith(CONTEXT_MARKER)
    ]


def check_db_after_kill(home: Path, earlier: list[tuple[str, str]], last_question: str) -> int:
    """Right after the kill, before anything reopens the conversation."""
    db = open_db(home)
    try:
        assert db.execute("pragma integrity_check").fetchone() == ("ok",)
        rows = db.execute("select seq, user_text, reply_text, status from turns order by seq").fetchall()
    finally:
        db.close()
    assert [(r[1], r[2], r[3]) for r in rows[:-1]] == [(q, a, "complete") for q, a in earlier]
    assert rows[-1][1:2] == (last_question,) and rows[-1][3] == "pending"
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1))
    return rows[-1][0]


def check_db_after_resume(home: Path, seq: int, *, partial_expected: bool, tool_ran: bool) -> str:
    db = open_db(home)
    try:
        assert db.execute("pragma integrity_check").fetchone() == ("ok",)
        status, reply, error, turn_id, messages = db.execute(
            "select status, reply_text, error, id, unpacked(messages_z) from turns where seq = ?", [seq]
        ).fetchone()
        calls = db.execute(
            "select step, status, reply_text, tool_calls_json from calls where turn_id = ? order by step, id", [turn_id]
        ).fetchall()
        notes = db.execute("select text from memory_events where kind = 'user_note'").fetchall()
        pending = db.execute("select count(*) from turns where status = 'pending'").fetchone()[0]
    finally:
        db.close()
    assert status == "interrupted" and error, (status, error)
    assert pending == 0
    assert all(c[1] in ("complete", "interrupted") for c in calls), calls
    assert calls[-1][1] == "interrupted"
    if tool_ran:
        assert calls[0][1] == "complete" and "remember" in calls[0][3]
        assert notes == [(NOTE,)]  # the tool's write was committed before the kill
    reply = reply or ""
    assert SLOW.startswith(reply) and len(reply) < len(SLOW)
    if partial_expected:
        assert reply, "the text that had arrived before the kill was lost"
        assert calls[-1][2] == reply
    else:
        assert not reply
    added = json.loads(messages)
    if reply:
        assert [m["role"] for m in added][-2:] == ["user", "assistant"] and added[-1]["content"] == reply
    else:
        assert added == []
    return reply


def check_resumed_request(
    messages: list[dict], earlier: list[tuple[str, str]], interrupted: str, partial: str, follow_up: str
) -> None:
    well_formed(messages)
    expected = []
    for question, answer in earlier:
        expected += [("user", question), ("assistant", answer)]
    if partial:
        expected += [("user", interrupted), ("assistant", partial)]
    expected.append(("user", follow_up))
    assert dialogue(messages) == expected


# --- pixiu ask ----------------------------------------------------------------------------

EARLIER = [("茅台怎么看", "第一条回复：贵州茅台是白酒龙头。"), ("仓位呢", "第二条回复：仓位请控制在三成以内。")]


def ask_in_process(env, *args) -> dict:
    done = pixiu_in_process(env, "ask", "--json", *args, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def two_completed_turns(server, env) -> int:
    """The history before the kill: written by the real entry point in this process, since
    only the killed process needs to be real."""
    server.enqueue(*(ScriptedReply(text=a) for _, a in EARLIER))
    first = ask_in_process(env, EARLIER[0][0])
    second = ask_in_process(env, "--continue", EARLIER[1][0])
    assert first["conversation_id"] == second["conversation_id"] and second["turn"] == 2
    return first["conversation_id"]


@pytest.mark.pty
@pytest.mark.parametrize(
    "where, reopen",
    [
        pytest.param("stream", "--continue", marks=pytest.mark.slow),  # a killed process: whole suite only
        pytest.param("tool-then-stream", "--continue", marks=pytest.mark.slow),
        pytest.param("tool-then-waiting", "--conversation", marks=pytest.mark.slow),
    ],
)
def test_ask_killed_then_reopened(server, online_env, pixiu_home, where, reopen):
    conversation_id = two_completed_turns(server, online_env)
    question = LONG_ASK
    if where == "stream":
        server.enqueue(slow_reply())
    elif where == "tool-then-stream":
        server.enqueue(tool_reply(), slow_reply())
    else:  # the tool ran; the follow-up request is in flight, nothing received yet
        server.enqueue(tool_reply(), ScriptedReply(text=SLOW, fault=Fault("delay", seconds=3)))
    before = len(server.requests)
    child = pexpect.spawn(PIXIU_BIN, ["ask", "--continue", question], env=online_env, encoding="utf-8", timeout=20)
    if where == "tool-then-waiting":
        wait_for(lambda: len(server.requests) == before + 2, what="the follow-up request")
        time.sleep(0.3)
    else:
        child.expect("很慢")
        wait_for_saved_partial(pixiu_home)
    sigkill(child)

    seq = check_db_after_kill(pixiu_home, EARLIER, question)
    server.enqueue(ScriptedReply(text="接着聊：收到。"))
    # What reopens is a new connection to the file the kill left (SQLite recovers the WAL
    # there); the real entry point in this process opens one as a new process would.
    resumed = ask_in_process(
        online_env, *(["--continue"] if reopen == "--continue" else [reopen, str(conversation_id)]), "继续"
    )
    assert resumed["conversation_id"] == conversation_id and resumed["turn"] == seq + 1
    assert resumed["status"] == "complete" and resumed["reply"] == "接着聊：收到。"
    partial = check_db_after_resume(
        pixiu_home, seq, partial_expected=where != "tool-then-waiting", tool_ran=where != "stream"
    )
    check_resumed_request(server.requests[-1].json["messages"], EARLIER, question, partial, "继续")


# --- the REPL -----------------------------------------------------------------------------


@pytest.mark.pty
@pytest.mark.slow
@pytest.mark.parametrize(
    "where, reopen", [("stream", "--continue"), ("tool-then-stream", "--continue"), ("tool-then-stream", "/resume")]
)
def test_repl_killed_then_reopened(server, online_env, pixiu_home, where, reopen):
    transcript = io.StringIO()
    child = spawn(online_env)
    child.logfile_read = transcript
    try:
        child.expect(PROMPT)
        for question, answer in EARLIER:
            server.enqueue(ScriptedReply(text=answer))
            say(child, question)
            child.expect_exact(answer)
            child.expect(PROMPT)
        server.enqueue(*([tool_reply()] if where != "stream" else []), slow_reply())
        say(child, LONG_ASK)
        if where != "stream":
            child.expect("已记住")
        child.expect("很慢")
        wait_for_saved_partial(pixiu_home)
        sigkill(child)
    finally:
        if child.isalive():
            child.terminate(force=True)

    seq = check_db_after_kill(pixiu_home, EARLIER, LONG_ASK)
    child = spawn(online_env, "chat", *([reopen] if reopen.startswith("--") else []))
    child.logfile_read = transcript
    try:
        if reopen == "/resume":
            child.expect("新对话")
            child.expect(PROMPT)
            say(child, "/resume 1")
            child.expect("已切换到对话 1")
        else:
            child.expect("继续对话 1")
        child.expect(PROMPT)
        server.enqueue(ScriptedReply(text="接着聊：收到。"))
        say(child, "继续")
        child.expect("接着聊：收到。")
        child.expect(PROMPT)
        say(child, "/exit")
        child.expect(pexpect.EOF)
    finally:
        if child.isalive():
            child.terminate(force=True)
    output = transcript.getvalue()
    assert "Traceback" not in output and "database is locked" not in output and "意外错误" not in output
    partial = check_db_after_resume(pixiu_home, seq, partial_expected=True, tool_ran=where != "stream")
    check_resumed_request(server.requests[-1].json["messages"], EARLIER, LONG_ASK, partial, "继续")


# --- an interrupt inside the write path -------------------------------------------------------


class InterruptAfterBegin:
    """The connection, except that a Ctrl-C (KeyboardInterrupt) arrives just after one
    BEGIN has been executed: the narrowest window of a write transaction."""

    def __init__(self, conn: sqlite3.Connection):
        self._conn = conn
        self.armed = True

    def __getattr__(self, name):
        return getattr(self._conn, name)

    def execute(self, sql, *args):
        cursor = self._conn.execute(sql, *args)
        if self.armed and sql.lstrip().upper().startswith("BEGIN"):
            self.armed = False
            raise KeyboardInterrupt
        return cursor


def test_ctrl_c_right_after_begin_leaves_no_open_transaction(tmp_path):
    from pixiu_cli.conversation.store import ConversationStore
    from pixiu_cli.kernel.store.database import open_database

    db = open_database(tmp_path / "pixiu.db")
    store = ConversationStore(db)
    conversation = store.create_conversation(title="一")
    db.conn = InterruptAfterBegin(db.conn)
    with pytest.raises(KeyboardInterrupt):
        store.start_turn(conversation.id, "被打断的问题")
    assert not db.conn.in_transaction  # otherwise every later write would nest in it, uncommitted
    store.start_turn(conversation.id, "下一个问题")
    other = sqlite3.connect(tmp_path / "pixiu.db", timeout=0.5)
    try:
        assert other.execute("select seq, user_text from turns").fetchall() == [(1, "下一个问题")]
        other.execute("begin immediate")  # the write lock is free
        other.rollback()
    finally:
        other.close()
        db.close()


# --- whose pending turn is stale ------------------------------------------------------------


@pytest.mark.slow
def test_reopening_leaves_a_live_processs_turn_alone(tmp_path):
    """`--continue` in one terminal while another pixiu is still answering in the same
    conversation must not mark that turn interrupted; once that process is gone, it must."""
    import subprocess

    from pixiu_cli.conversation.store import ConversationStore
    from pixiu_cli.kernel.store.database import open_database, process_start_time

    db = open_database(tmp_path / "pixiu.db")
    store = ConversationStore(db)
    conversation = store.create_conversation(title="一")
    other = subprocess.Popen(["sleep", "60"])
    try:
        live = store.start_turn(conversation.id, "另一个终端正在回答的问题")
        owner = f"{other.pid}:{process_start_time(other.pid) or ''}"
        with db.conn:
            db.conn.execute("update turns set owner = ? where id = ?", [owner, live.id])
        assert store.mark_stale_pending(conversation.id) == 0
        assert store.get_turn(live.id).status == "pending"
        if process_start_time(other.pid) is not None:  # the same pid, started at another time: reused, so gone
            with db.conn:
                db.conn.execute("update turns set owner = ? where id = ?", [f"{other.pid}:1", live.id])
            assert store.mark_stale_pending(conversation.id) == 1
            with db.conn:
                db.conn.execute("update turns set status = 'pending', owner = ? where id = ?", [owner, live.id])
    finally:
        other.kill()
        other.wait()
    assert store.mark_stale_pending(conversation.id) == 1
    assert store.get_turn(live.id).status == "interrupted"
    # this process's own abandoned turn (Ctrl-C before the stream) is marked too
    own = store.start_turn(conversation.id, "自己放弃的问题")
    assert store.mark_stale_pending(conversation.id) == 1
    assert store.get_turn(own.id).status == "interrupted"
    db.close()
