"""History policy for old [上下文信息] blocks: keep, drop, or keep and send only what changed."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from pixiu_cli.context.block import CONTEXT_CLOSE, CONTEXT_OPEN
from pixiu_cli.context.builder import ContextBuilder
from pixiu_cli.dataset import load_document
from pixiu_cli.store.conversations import ConversationStore
from pixiu_cli.store.database import open_database
from pixiu_cli.store.domain import DomainStore
from tests.helpers import FIXTURE, NOW


def two_turns(tmp_path, policy):
    db = open_database(tmp_path / "p.db")
    domain = DomainStore(db)
    domain.replace_all(load_document(Path(FIXTURE), NOW))
    store = ConversationStore(db)
    builder = ContextBuilder(store, domain, clock=lambda: NOW, history_blocks=policy)
    conv = store.create_conversation().id
    turn = store.start_turn(conv, "海康怎么样")
    first = builder.build_messages(conv, "海康怎么样", before_seq=turn.seq, now=NOW)
    store.finish_turn(turn.id, status="complete", reply_text="答", messages=first.messages[1:] + [
        {"role": "assistant", "content": "答"}])
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
    assert second.messages[:len(first.messages)] == first.messages


def test_keep_repeats_everything_and_drop_removes_old_blocks(tmp_path):
    _, kept = two_turns(tmp_path / "k", "keep")
    assert "## 未变化" not in kept.messages[-2]["content"]
    assert sum(m["content"].startswith(CONTEXT_OPEN) for m in kept.messages) == 2
    _, dropped = two_turns(tmp_path / "d", "drop")
    assert sum(m["content"].startswith(CONTEXT_OPEN) for m in dropped.messages) == 1


def test_unknown_policy_is_rejected(tmp_path):
    db = open_database(tmp_path / "p.db")
    with pytest.raises(ValueError):
        ContextBuilder(ConversationStore(db), DomainStore(db), history_blocks="sometimes")
