"""A real turn (the app as `pixiu chat --demo` composes it, the offline server over HTTP)
reads only the turns it sends, makes few SQL statements and no savepoints, and leaves
each call's cache explanation stored so /cache only reads."""

from __future__ import annotations

import os

from pixiu_cli.account.explain import wait_for_explanations
from pixiu_cli.account.report import PriceTable, build_report
from pixiu_cli.app import open_app
from pixiu_cli.conversation.agent.loop import SilentSink
from pixiu_cli.conversation.offline.script import ScriptedReply, ToolCallSpec
from pixiu_cli.kernel.settings import load_settings


def _turn(app, conversation, tool: bool, i: int) -> None:
    server = app._offline_server.server  # started on first use, as a turn would
    if tool:
        server.enqueue(ScriptedReply(tool_calls=[ToolCallSpec("get_holdings", "{}")]), ScriptedReply(text="好的。"))
    else:
        server.enqueue(ScriptedReply(text=f"第 {i} 轮回答。"))
    assert app.agent.run_turn(conversation, f"茅台怎么看？第 {i} 问", SilentSink()).status == "complete"


def test_tool_turn_statements_history_query_and_stored_explanations(tmp_path):
    app = open_app(load_settings(home=tmp_path / "home", force_offline=True), demo=True)
    try:
        conversation = app.store.create_conversation(model=app.settings.model).id
        for i in range(4):
            _turn(app, conversation, False, i)
        statements: list[str] = []
        bodies = []
        client = app.agent.client
        client.body_for = lambda request: bodies.append(request) or type(client).body_for(client, request)
        app.store.db.conn.set_trace_callback(statements.append)
        _turn(app, conversation, True, 4)
        app.store.db.conn.set_trace_callback(None)
        # 52 measured (105-110 with sqlite-utils writes and whole-history reads; one is the
        # watch list, named like the holdings); a slow machine may add one partial save (3
        # statements) to each of the two calls.
        assert len(statements) <= 58, len(statements)
        assert not [s for s in statements if s.upper().startswith(("SAVEPOINT", "RELEASE"))]
        assert len([s for s in statements if s.startswith("select c.*")]) == 1  # the conversation, read once
        assert len([s for s in statements if "request_depth from calls" in s]) == 2  # one pack base per call
        assert len(bodies) == 2  # one request body per call, stored and sent
        history = [s for s in statements if s.startswith("select id, ") and " from turns where conversation_id" in s]
        assert history and all("seq > " in s and "seq < 5" in s for s in history)
        assert all("null as reply_text" in s for s in history)  # a history is built without reading replies

        wait_for_explanations()  # worked out on a worker thread, off the turn's path
        calls = app.store.calls_for_conversation(conversation)
        assert len(calls) == 6 and all(c.cache_explanation_json for c in calls)
        stored = build_report(app.store, conversation, PriceTable()).as_json()
        app.store.db.conn.execute("update calls set cache_explanation_json = null")
        assert build_report(app.store, conversation, PriceTable()).as_json() == stored  # same as computing
        assert stored["calls"][-1]["break"]["cause"] == "append_only"
    finally:
        app.close()


def _open_files_under(folder) -> list[str]:
    """What this process holds open below `folder` (Linux: /proc/self/fd)."""
    held = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(folder)):
            held.append(target)
    return held


def test_the_explanation_worker_lets_go_of_a_database_once_idle(tmp_path):
    """The live evals delete each case's database after its turn; a worker still holding it
    open could write beside the deletion (the folder then cannot be removed)."""
    home = tmp_path / "home"
    app = open_app(load_settings(home=home, force_offline=True), demo=True)
    try:
        conversation = app.store.create_conversation(model=app.settings.model).id
        _turn(app, conversation, False, 0)
        wait_for_explanations()
        assert all(c.cache_explanation_json for c in app.store.calls_for_conversation(conversation))
    finally:
        app.close()
    assert _open_files_under(home) == []
