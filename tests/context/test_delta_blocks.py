"""History policy for old [上下文信息] blocks: keep, drop, or keep and send only what changed."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from sqlite_utils import Database

from pixiu_cli.conversation.context.block import CONTEXT_CLOSE, CONTEXT_OPEN, MemoryId
from pixiu_cli.conversation.context.builder import ContextBuilder
from pixiu_cli.conversation.store import ConversationStore
from pixiu_cli.home.document_file import load_document
from pixiu_cli.home.store import InvestorStore
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.kernel.store.rows import pack_text, unpack_text
from pixiu_cli.kernel.store.schema import migrations
from tests.helpers import FIXTURE, NOW


def two_turns(tmp_path, policy):
    db = open_database(tmp_path / "p.db")
    domain = InvestorStore(db)
    domain.replace_all(load_document(Path(FIXTURE), NOW))
    store = ConversationStore(db)
    builder = ContextBuilder(store, domain, clock=lambda: NOW, history_blocks=policy)
    conv = store.create_conversation().id
    turn = store.start_turn(conv, "海康怎么样")
    first = builder.build_messages(conv, "海康怎么样", before_seq=turn.seq, now=NOW)
    store.finish_turn(
        turn.id,
        status="complete",
        reply_text="答",
        messages=first.messages[1:] + [{"role": "assistant", "content": "答"}],
    )
    later = NOW + timedelta(minutes=5)
    second = builder.build_messages(conv, "宁德呢", now=later)
    return first, second


def test_delta_sends_only_changed_sections(tmp_path):
    first, second = two_turns(tmp_path, "delta")
    block = second.messages[-2]["content"]
    assert block.startswith(CONTEXT_OPEN) and block.endswith(CONTEXT_CLOSE)
    assert "## 当前时间" in block and "10:20" in block  # time always re-sent
    assert "## 标的上下文：300750 宁德时代" in block  # new section
    assert "## 未变化" in block and "持仓（3 只）" in block.split("## 未变化")[1]
    assert "## 持仓（3 只）" not in block  # unchanged, not repeated
    assert second.context_block.unchanged and second.context_block.tokens < first.context_block.tokens
    # the previous request is an exact prefix of this one
    assert second.messages[: len(first.messages)] == first.messages


def test_keep_repeats_everything_and_drop_removes_old_blocks(tmp_path):
    _, kept = two_turns(tmp_path / "k", "keep")
    assert "## 未变化" not in kept.messages[-2]["content"]
    assert sum(m["content"].startswith(CONTEXT_OPEN) for m in kept.messages) == 2
    _, dropped = two_turns(tmp_path / "d", "drop")
    assert sum(m["content"].startswith(CONTEXT_OPEN) for m in dropped.messages) == 1


def test_unknown_policy_is_rejected(tmp_path):
    db = open_database(tmp_path / "p.db")
    with pytest.raises(ValueError):
        ContextBuilder(ConversationStore(db), InvestorStore(db), history_blocks="sometimes")


def first_turn(path, record: bool):
    """A conversation with one finished turn, stored with its block record or, as before
    records were kept, without one."""
    db = open_database(path)
    domain = InvestorStore(db)
    domain.replace_all(load_document(Path(FIXTURE), NOW))
    store = ConversationStore(db)
    builder = ContextBuilder(store, domain, clock=lambda: NOW)
    conv = store.create_conversation().id
    turn = store.start_turn(conv, "海康怎么样")
    first = builder.build_messages(conv, "海康怎么样", before_seq=turn.seq, now=NOW)
    added = first.messages[1:] + [{"role": "assistant", "content": "答"}]
    store.finish_turn(
        turn.id, status="complete", reply_text="答", messages=added, block=first.block_record(added) if record else None
    )
    return store, builder, conv, first


def test_block_record_is_stored_with_the_turn_and_read_instead_of_the_text(tmp_path):
    store, builder, conv, first = first_turn(tmp_path / "r.db", record=True)
    stored = store.turn_by_seq(conv, 1).block
    block = first.context_block
    assert stored == json.loads(json.dumps(block.record()))
    assert set(stored["sections"]) == {s.title for s in block.sections}
    assert [MemoryId(*m) for m in stored["memory_ids"]] == block.memory_ids and block.memory_ids
    assert all(str(m) in block.text for m in block.memory_ids)  # shown as "note:12"
    later = NOW + timedelta(minutes=5)
    with_record = builder.build_messages(conv, "宁德呢", now=later)
    # The same request as from parsing the block text (a turn stored without a record) ...
    old_store, old_builder, old_conv, _ = first_turn(tmp_path / "o.db", record=False)
    assert old_store.turn_by_seq(old_conv, 1).block is None
    assert old_builder.build_messages(old_conv, "宁德呢", now=later).messages == with_record.messages
    assert with_record.context_block.unchanged
    # ... and the record is what is read: a stored text that no longer matches it is not parsed.
    holdings = next(s.title for s in block.sections if s.key == "holdings")
    for turn_id, packed in store.db.execute(
        "select id, messages_z from turns where conversation_id = ?", [conv]
    ).fetchall():
        edited = unpack_text(packed).replace(f"## {holdings}", f"## {holdings}（改）")
        store.db.execute("update turns set messages_z = ? where id = ?", [pack_text(edited), turn_id])
    assert holdings in builder.build_messages(conv, "宁德呢", now=later).context_block.unchanged
    store.db.execute("update turns set block_json = null where conversation_id = ?", [conv])
    assert holdings not in builder.build_messages(conv, "宁德呢", now=later).context_block.unchanged


def test_turns_stored_before_the_record_migration_still_get_delta_blocks(tmp_path):
    """A database from before block records: the migration adds the column, and its turns
    keep NULL and have their block text parsed."""
    path = tmp_path / "old.db"
    _, _, _, first = first_turn(tmp_path / "fresh.db", record=False)
    old = Database(path)
    migrations.apply(old, stop_before="m019_turn_block_record")
    assert "block_json" not in old["turns"].columns_dict
    old.execute("insert into conversations (id, title, created_at, updated_at) values (1, '', 'x', 'x')")
    old.execute(
        "insert into turns (conversation_id, seq, user_text, status, messages_json, created_at) "
        "values (1, 1, '海康怎么样', 'complete', ?, 'x')",
        [json.dumps(first.messages[1:] + [{"role": "assistant", "content": "答"}], ensure_ascii=False)],
    )
    old.close()
    db = open_database(path)
    assert "block_json" in db["turns"].columns_dict
    domain = InvestorStore(db)
    domain.replace_all(load_document(Path(FIXTURE), NOW))
    store = ConversationStore(db)
    builder = ContextBuilder(store, domain, clock=lambda: NOW)
    assert store.turn_by_seq(1, 1).block is None
    second = builder.build_messages(1, "宁德呢", now=NOW + timedelta(minutes=5))
    assert second.messages[: len(first.messages)] == first.messages
    assert "持仓（3 只）" in second.context_block.unchanged
