"""A turn's messages and a call's block summary stored packed (against a shared dictionary),
a request's middle packed against the previous request; every one reads back exactly, and
rows written before are converted by the migration."""

from __future__ import annotations

import hashlib
import json
import zlib

from hypothesis import given, settings
from hypothesis import strategies as st
from sqlite_utils import Database

from pixiu_cli.conversation.store import ConversationStore, add_request_function, pack, unpack
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.kernel.store.rows import dictionary, pack_text, unpack_text
from pixiu_cli.kernel.store.schema import migrations

# Rows packed with dictionary 1 read only with these exact bytes: a change is a new file.
DICTIONARY_1 = "3531bc04878516cab1cfeb0bbf3cdc0707c176d35c09c29681e796f3b91e9bbe"

HOLDINGS = json.dumps(
    {"cost_method": "diluted", "holdings": [{"symbol": "600519", "shares": 200.0, "weight": 0.26}]}, ensure_ascii=False
)


def test_the_first_dictionary_never_changes():
    assert hashlib.sha256(dictionary(1)).hexdigest() == DICTIONARY_1


@given(st.text(max_size=300))
@settings(max_examples=60, deadline=None)
def test_packed_text_reads_back_exactly(text):
    assert unpack_text(pack_text(text)) == text


def test_a_turns_texts_are_stored_packed_and_read_back(tmp_path):
    store = ConversationStore(open_database(tmp_path / "p.db"))
    conv = store.create_conversation().id
    turn = store.start_turn(conv, "茅台怎么样")
    summary = json.dumps({"intent": "single_stock", "symbols": ["600519"], "sections": []}, ensure_ascii=False)
    call_id = store.start_call(
        turn_id=turn.id, conversation_id=conv, step=0, provider="p", model="m", request_json="{}", context_json=summary
    )
    messages = [{"role": "user", "content": "茅台怎么样"}, {"role": "assistant", "content": "先说结论。" * 50}]
    store.finish_turn(turn.id, status="complete", reply_text="先说结论。", messages=messages)
    fresh = ConversationStore(store.db)
    assert fresh.get_turn(turn.id).messages == messages
    assert fresh.get_call(call_id).context_json == summary
    plain, packed = store.db.conn.execute("select messages_json, length(messages_z) from turns").fetchone()
    assert plain is None and packed < len(json.dumps(messages, ensure_ascii=False).encode()) // 5
    store.label_retried(turn.id, "（已重试）")
    assert fresh.get_turn(turn.id).messages == []


def test_a_request_middle_that_repeats_earlier_text_is_packed_against_it():
    old = json.dumps({"messages": [{"role": "tool", "content": HOLDINGS}, {"role": "user", "content": "问"}]})
    new = old[:-2] + ', {"role": "tool", "content": ' + json.dumps(HOLDINGS) + "}]}"
    packed = pack(new, (7, old, 0))
    assert packed.dictionary > 0 and unpack(packed.columns(), old) == new
    middle = new.encode()[packed.prefix : len(new.encode()) - packed.suffix]
    assert len(packed.blob) < len(zlib.compress(middle, 6)) * 0.6


def test_the_migration_packs_rows_written_before(tmp_path):
    path = tmp_path / "old.db"
    old = Database(path)
    migrations.apply(old, stop_before="m032_packed_turn_texts")
    old.execute("insert into conversations (id, title, created_at, updated_at) values (1, '', 'x', 'x')")
    messages = json.dumps([{"role": "user", "content": "问"}, {"role": "assistant", "content": "答"}])
    old.execute(
        "insert into turns (id, conversation_id, seq, user_text, status, messages_json, created_at) "
        "values (1, 1, 1, '问', 'complete', ?, 'x')",
        [messages],
    )
    request = '{"messages": [{"role": "user", "content": "问"}]}'
    old.execute(
        "insert into calls (id, turn_id, conversation_id, step, provider, model, request_z, context_json, status, "
        "started_at) values (1, 1, 1, 0, 'p', 'm', ?, '{\"intent\": \"general\"}', 'complete', 'x')",
        [zlib.compress(request.encode())],
    )
    old.close()
    store = ConversationStore(open_database(path))
    rows = store.db.conn.execute("select messages_json, messages_z is not null from turns").fetchall()
    assert rows == [(None, 1)]
    assert store.get_turn(1).messages == json.loads(messages)
    call = store.get_call(1)
    assert (call.context_json, call.request_json) == ('{"intent": "general"}', request)
    add_request_function(store.db.conn)
    assert store.db.conn.execute("select unpacked(context_z), context_json from calls").fetchone() == (
        '{"intent": "general"}',
        None,
    )
