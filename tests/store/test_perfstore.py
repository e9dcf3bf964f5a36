"""Requests stored once and packed, yet byte-exact; /cache reads stored explanations;
history reads only the turns asked for."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from pixiu_cli.account.report import PriceTable, build_report
from pixiu_cli.conversation.llm.types import Usage
from pixiu_cli.conversation.store import MAX_DEPTH, ConversationStore, add_request_function, pack, unpack
from pixiu_cli.kernel.store.database import open_database


def _store(tmp_path, name="p.db") -> ConversationStore:
    return ConversationStore(open_database(tmp_path / name))


def _finish(store, call_id, request_json=None):
    store.finish_call(
        call_id,
        status="complete",
        reply_text="答",
        reasoning_text="",
        tool_calls=[],
        finish_reason="stop",
        usage=Usage(100, 10, 64, 36),
        ttft_ms=1.0,
        latency_ms=2.0,
        request_json=request_json,
    )


texts = st.text(alphabet=st.sampled_from(list('ab{}"茅台，\n') + ["\U0001f600"]), max_size=60)


@given(st.lists(st.tuples(texts, texts, texts), min_size=1, max_size=MAX_DEPTH + 6))
@settings(max_examples=40, deadline=None)
def test_packed_requests_reconstruct_byte_identical(tmp_path_factory, parts):
    store = _store(tmp_path_factory.mktemp("pack"))
    conv = store.create_conversation().id
    turn = store.start_turn(conv, "问")
    sent, body = [], "前缀"
    for head, tail, rewrite in parts:
        body = body + head
        request = json.dumps({"messages": body, "tools": tail}, ensure_ascii=False)
        call_id = store.start_call(
            turn_id=turn.id, conversation_id=conv, step=0, provider="p", model="m", request_json=request
        )
        final = request + rewrite if rewrite else None  # the as-sent body may differ from the built one
        _finish(store, call_id, final)
        sent.append(final or request)
    fresh = ConversationStore(store.db)  # nothing remembered: every chain read from disk
    assert [c.request_json for c in fresh.calls_for_conversation(conv)] == sent
    assert [fresh.get_call(c.id).request_json for c in fresh.calls_for_turn(turn.id)][::-1] == sent[::-1]
    add_request_function(store.db.conn)
    assert [r[0] for r in store.db.conn.execute("select call_request(id) from calls order by id")] == sent


def test_a_request_is_stored_once_and_smaller_than_its_text(tmp_path):
    store = _store(tmp_path)
    conv = store.create_conversation().id
    turn = store.start_turn(conv, "问")
    history = ""
    for i in range(6):
        history += f"第 {i} 轮：茅台的估值、分红和仓位怎么看？" * 20
        request = json.dumps(
            {"messages": [{"role": "user", "content": history}], "tools": ["t"] * 50}, ensure_ascii=False
        )
        _finish(
            store,
            store.start_call(
                turn_id=turn.id, conversation_id=conv, step=0, provider="p", model="m", request_json=request
            ),
            request,
        )
    rows = store.db.conn.execute(
        "select request_json, length(request_z), request_base from calls order by id"
    ).fetchall()
    assert all(r[0] is None for r in rows)  # no second, plain copy
    assert rows[0][2] is None and all(r[2] is not None for r in rows[1:])  # later calls are deltas
    assert max(r[1] for r in rows[1:]) < len(request.encode()) // 20


def test_old_rows_with_plain_request_json_still_read(tmp_path):
    store = _store(tmp_path)
    conv = store.create_conversation().id
    turn = store.start_turn(conv, "问")
    call_id = store.start_call(
        turn_id=turn.id, conversation_id=conv, step=0, provider="p", model="m", request_json='{"old": 1}'
    )
    store.db.conn.execute('update calls set request_json = \'{"old": "行"}\', request_z = null where id = ?', [call_id])
    assert ConversationStore(store.db).get_call(call_id).request_json == '{"old": "行"}'


def test_pack_unpack_roundtrip_across_multibyte_boundaries():
    old = '{"m": "茅台茅台", "t": "工具"}'
    new = '{"m": "茅台茅台茅", "t": "工具"}'
    packed = pack(new, (1, old, 0))
    assert packed.base == 1 and unpack({**packed.columns()}, old) == new


def test_cache_report_reads_the_explanation_stored_at_finish(tmp_path):
    store = _store(tmp_path)
    conv = store.create_conversation().id
    turn = store.start_turn(conv, "问")
    call_id = store.start_call(
        turn_id=turn.id, conversation_id=conv, step=0, provider="p", model="m", request_json='{"messages": []}'
    )
    _finish(store, call_id)
    # a stored explanation no computation would produce: the report must show it as stored
    store.set_cache_explanation(
        call_id, json.dumps({"cause": "tools_changed", "common_tokens": 4242, "predicted_hit": 4224, "detail": "已存"})
    )
    line = build_report(store, conv, PriceTable()).calls[0]
    assert (line.explanation.cause, line.explanation.common_tokens, line.explanation.detail) == (
        "tools_changed",
        4242,
        "已存",
    )
    assert line.explanation.reported_hit == 64
    store.db.conn.execute("update calls set cache_explanation_json = null")  # an old row: computed
    assert build_report(store, conv, PriceTable()).calls[0].explanation.cause == "first_call"
    kept = store.db.conn.execute("select cache_explanation_json from calls").fetchone()[0]
    assert json.loads(kept)["cause"] == "first_call"  # worked out once, then only read


def test_turns_are_filtered_by_seq_in_sql(tmp_path):
    store = _store(tmp_path)
    conv = store.create_conversation().id
    for i in range(8):
        store.finish_turn(store.start_turn(conv, f"问{i}").id, status="complete", reply_text="答", messages=[])
    statements: list[str] = []
    store.db.conn.set_trace_callback(statements.append)
    assert [t.seq for t in store.turns(conv, after_seq=2, before_seq=6)] == [3, 4, 5]
    store.db.conn.set_trace_callback(None)
    assert len(statements) == 1 and "seq > 2" in statements[0] and "seq < 6" in statements[0]
    assert not any("SAVEPOINT" in s.upper() for s in statements)
    assert [t.seq for t in store.turns(conv)] == list(range(1, 9))


def test_the_explanation_worker_never_recreates_a_deleted_database(tmp_path):
    """A call explained after its database's folder was deleted (a throw-away copy, a
    benchmark's temporary folder) is skipped: opening the path would create the folder and
    the file again, and the deletion would find the folder not empty."""
    import shutil

    from pixiu_cli.account.explain import explain_finished_call, wait_for_explanations

    folder = tmp_path / "copy"
    folder.mkdir()
    db = open_database(folder / "pixiu.db")
    store = ConversationStore(db)
    shutil.rmtree(folder)
    explain_finished_call(store, 1)
    db.close()
    wait_for_explanations()
    assert not folder.exists()
