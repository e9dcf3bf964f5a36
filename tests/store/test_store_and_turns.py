"""The store and the agent's turn bookkeeping, on a real SQLite file: over the wire to the real
server where the bytes sent or the key matter, on the offline model in process otherwise."""

from __future__ import annotations

import json
import sqlite3
import threading
import time

from pixiu_cli.conversation.context.builder import system_prompt
from pixiu_cli.conversation.offline.script import Fault, ScriptedReply
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.kernel.store.schema import migrations
from tests.helpers import PLANTED_KEY, build_app, http_model


def make_agent(model, db_path):
    app = build_app(model, db_path)
    return app.agent, app.store


def test_migrations_are_idempotent_and_wal(tmp_path):
    path = tmp_path / "p.db"
    db = open_database(path)
    assert migrations.pending(db) == []
    db.close()
    db = open_database(path)  # reopening applies nothing and keeps data
    assert db.execute("pragma journal_mode").fetchone()[0] == "wal"
    assert {"conversations", "turns", "calls"} <= set(db.table_names())


def test_user_message_is_committed_before_the_model_answers(model, tmp_path):
    agent, store = make_agent(model, tmp_path / "p.db")
    conversation = store.create_conversation()
    model.enqueue(ScriptedReply(text="慢慢地回答" * 5, chunk_chars=1, chunk_delay=0.05))
    worker = threading.Thread(target=agent.run_turn, args=(conversation.id, "茅台怎么看"))
    worker.start()
    seen = None
    other = sqlite3.connect(tmp_path / "p.db")
    deadline = time.time() + 5
    while time.time() < deadline and seen is None:
        rows = other.execute("select user_text, status from turns").fetchall()
        seen = rows[0] if rows and not model.requests == [] else None
        time.sleep(0.01)
    worker.join()
    assert seen == ("茅台怎么看", "pending")  # visible to another connection mid-reply
    assert other.execute("select status, reply_text from turns").fetchone() == ("complete", "慢慢地回答" * 5)


def test_turn_history_and_exact_requests(server, tmp_path):
    agent, store = make_agent(http_model(server, timeout=5), tmp_path / "p.db")
    conversation = store.create_conversation()
    server.enqueue(ScriptedReply(text="第一答"), ScriptedReply(text="第二答"))
    first = agent.run_turn(conversation.id, "第一问")
    second = agent.run_turn(conversation.id, "第二问")
    assert (first.seq, second.seq) == (1, 2)
    call = store.calls_for_conversation(conversation.id)[-1]
    sent = json.loads(call.request_json)["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "user", "assistant", "user", "user"]
    assert sent[0]["content"] == system_prompt()
    assert sent[1]["content"].startswith("[上下文信息]") and sent[4]["content"].startswith("[上下文信息]")
    assert sent[2:4] == [{"role": "user", "content": "第一问"}, {"role": "assistant", "content": "第一答"}]
    assert sent[-1] == {"role": "user", "content": "第二问"}
    assert call.request_json.encode() == server.requests[-1].body_bytes
    assert call.usage.cache_hit_tokens is not None and call.usage.cache_hit_tokens > 0
    assert second.usage.prompt_tokens == call.usage.prompt_tokens


def test_error_turn_is_marked_and_skipped_in_history(model, tmp_path):
    agent, store = make_agent(model, tmp_path / "p.db")
    conversation = store.create_conversation()
    model.inject(Fault("http_error", status=500))
    failed = agent.run_turn(conversation.id, "会失败的问题")
    assert failed.status == "error" and "500" in failed.error
    model.enqueue(ScriptedReply(text="恢复了"))
    ok = agent.run_turn(conversation.id, "再问一次")
    assert ok.status == "complete" and ok.reply == "恢复了"
    turns = store.turns(conversation.id)
    assert [t.status for t in turns] == ["error", "complete"]
    assert turns[0].user_text == "会失败的问题"
    sent = store.calls_for_conversation(conversation.id)[-1].request["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "user"]  # nothing left from the failed turn
    assert sent[-1]["content"] == "再问一次"


def test_mid_stream_drop_keeps_partial_reply(model, tmp_path):
    agent, store = make_agent(model, tmp_path / "p.db")
    conversation = store.create_conversation()
    model.enqueue(ScriptedReply(text="部分内容然后断开", chunk_chars=2, fault=Fault("drop_stream", after_chunks=2)))
    result = agent.run_turn(conversation.id, "问题")
    assert result.status == "error" and result.reply
    turn = store.turns(conversation.id)[0]
    assert turn.reply_text == result.reply and turn.messages[-1] == {"role": "assistant", "content": result.reply}


def test_key_never_reaches_the_database(server, tmp_path):
    agent, store = make_agent(http_model(server, timeout=5), tmp_path / "p.db")
    conversation = store.create_conversation()
    server.inject(Fault("http_error", status=401))
    agent.run_turn(conversation.id, "一")
    agent.run_turn(conversation.id, "二")
    store.db.close()
    read = []
    for path in tmp_path.glob("p.db*"):
        try:  # another connection closing may remove the -wal/-shm files between glob and read
            data = path.read_bytes()
        except FileNotFoundError:
            continue
        assert PLANTED_KEY.encode() not in data, path.name
        read.append(path.name)
    assert "p.db" in read


def test_listed_conversations_read_like_one_conversation(tmp_path):
    """One row mapper: a listed conversation carries everything get_conversation does,
    including how far its summary reaches."""
    from pixiu_cli.conversation.store import ConversationStore

    db = open_database(tmp_path / "p.db")
    store = ConversationStore(db)
    conversation = store.create_conversation("茅台", model="deepseek-chat")
    for text in ("第一问", "第二问"):
        turn = store.start_turn(conversation.id, text)
        store.finish_turn(turn.id, status="complete", reply_text="答", messages=[])
    store.set_summary(conversation.id, "- 摘要", upto_seq=1)
    [listed] = store.list_conversations()
    assert listed == store.get_conversation(conversation.id)
    assert listed.summary_upto_turn == 1 and listed.turn_count == 2
    db.close()
