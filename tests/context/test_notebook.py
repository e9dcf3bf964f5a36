"""The investor's notebook: rules stay in force, the user's notes are labelled as theirs,
a new plan offers to replace the one it restates, pins, and /memory search by stock and kind.
On a real SQLite file, through the product's services and the context builder."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from pixiu_cli.account.handle import Account
from pixiu_cli.account.trades import NewTrade, record_trade
from pixiu_cli.conversation.context.builder import ContextBuilder, system_prompt
from pixiu_cli.conversation.context.memory_classes import MemoryLimits
from pixiu_cli.conversation.store import ConversationStore
from pixiu_cli.home.document_file import SHANGHAI, parse_document
from pixiu_cli.home.store import InvestorStore
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.memory import notes
from pixiu_cli.memory.changes import search_memories
from pixiu_cli.memory.handle import Memory
from pixiu_cli.memory.store import MemoryStore
from pixiu_cli.memory.views import forget_notice, pin_notice, replacement_notice

NOW = datetime(2026, 12, 1, 10, 15, tzinfo=SHANGHAI)


def ago(days: float) -> str:
    return (NOW - timedelta(days=days)).isoformat(timespec="seconds")


@pytest.fixture
def db(tmp_path):
    return open_database(tmp_path / "p.db")


def block(db, text: str, **limits):
    builder = ContextBuilder(ConversationStore(db), InvestorStore(db), MemoryLimits(**limits), clock=lambda: NOW)
    return builder.context_block(text, now=NOW)[0]


def note(db, kind: str, text: str, days_ago: float, symbol: str | None = None, source: str = "user"):
    return notes.add_note(Memory(db), notes.NewNote(kind, text, symbol, source), ago(days_ago))


def test_a_rule_stays_in_force_past_the_notes_window(db):
    rule = note(db, "rule", "永远不满仓，永远不融资", 61)
    note(db, "view", "白酒要完", 61)
    text = block(db, "我能满仓吗").text
    assert "永远不满仓，永远不融资" in text and f"（note:{rule.event.id}）" in text
    assert "白酒要完" not in text  # a view keeps its 30-day window
    # withdrawn, it is gone
    MemoryStore(db).forget(rule.event.id, ago(0))
    assert "永远不满仓" not in block(db, "我能满仓吗").text


def test_rules_have_their_own_limit_and_outrank_views_when_trimming(db):
    for i in range(4):
        note(db, "rule", f"第 {i} 条纪律：单只不超过 {20 + i}%", 100 + i)
    for i in range(6):
        note(db, "view", f"观点 {i}：消费会复苏，这是一段足够长的观点文字用来占预算 {i}", 1 + i)
    limited = block(db, "你好", rules_limit=2).text
    assert "第 0 条纪律" in limited and "第 1 条纪律" in limited and "第 2 条纪律" not in limited
    tight = block(db, "你好", budget_tokens=420)
    assert "rules" in {s.key for s in tight.sections}
    assert all(f"第 {i} 条纪律" in tight.text for i in range(4))
    assert "观点 5" not in tight.text  # the views went first


def test_the_users_notes_are_labelled_as_theirs_not_as_opinion(db):
    note(db, "rule", "永远不融资", 3)
    note(db, "plan", "回踩 30 元加仓海康", 2, "002415")
    note(db, "view", "消费会复苏", 1)
    text = block(db, "你好").text
    assert "[用户纪律 · " in text and "[用户计划 · " in text and "[用户观点 · " in text
    assert "情绪观点" not in text
    prompt = system_prompt()
    assert "用户纪律" in prompt and "违反" in prompt and "对照检查" in prompt


def test_a_new_plan_offers_to_replace_the_one_it_restates_and_both_hold_until_accepted(db):
    old = note(db, "plan", "宁德时代回踩30加仓", 5, "300750")
    other = note(db, "plan", "宁德时代跌破25止损", 5, "300750")
    new = note(db, "plan", "宁德时代回踩28加仓", 1, "300750")
    ref = f"n{new.event.id}"
    notice = notes.note_notice(new)
    assert [p.id for p in new.offered] == [old.event.id] and other.offered == ()
    assert f"与 #n{old.event.id}「宁德时代回踩30加仓」同一只股票同一方向，替换旧计划吗？" in notice
    assert f"/memory replace {ref}" in notice and f"/forget {ref} 可撤销" in notice
    offered = block(db, "宁德时代怎么样").text  # not accepted yet: both plans, the older one marked
    assert "回踩28加仓" in offered and "跌破25止损" in offered
    old_line = next(line for line in offered.splitlines() if "回踩30加仓" in line)
    assert f"新计划 note:{new.event.id} 待用户确认是否替换它" in old_line
    done = notes.accept_replacement(Memory(db), ref)
    assert f"替换旧计划 #n{old.event.id}「宁德时代回踩30加仓」" in replacement_notice(done)
    text = block(db, "宁德时代怎么样").text
    assert "回踩28加仓" in text and "回踩30加仓" not in text and "跌破25止损" in text
    with pytest.raises(RequestError, match="没有待确认替换的旧计划"):
        notes.accept_replacement(Memory(db), ref)  # accepted once; nothing left to replace
    forgotten = MemoryStore(db).forget(new.event.id, ago(0))
    assert f"旧计划 #n{old.event.id} 恢复有效" in forget_notice(ref, forgotten)
    text = block(db, "宁德时代怎么样").text
    assert "回踩30加仓" in text and "回踩28加仓" not in text and "待用户确认" not in text


def test_declining_the_offer_keeps_both_plans_and_forget_clears_the_mark(db):
    old = note(db, "plan", "宁德时代回踩30加仓", 5, "300750")
    new = note(db, "plan", "宁德时代回踩28加仓", 1, "300750")
    note(db, "view", "电池行业景气", 0)  # the user moves on without /memory replace
    text = block(db, "宁德时代怎么样").text
    assert "回踩30加仓" in text and "回踩28加仓" in text
    listed = {e.ref: e for e in search_memories(Memory(db), "300750")}
    assert listed[f"n{old.event.id}"].replace_offered_by == new.event.id
    MemoryStore(db).forget(new.event.id, ago(0))
    text = block(db, "宁德时代怎么样").text
    assert "回踩30加仓" in text and "待用户确认" not in text


def test_only_a_plan_with_an_offer_can_replace(db):
    view = note(db, "view", "宁德时代还能涨", 1, "300750")
    with pytest.raises(RequestError, match="不是一条计划"):
        notes.accept_replacement(Memory(db), f"n{view.event.id}")
    plan = note(db, "plan", "宁德时代回踩30加仓", 1, "300750")
    with pytest.raises(RequestError, match="没有待确认替换的旧计划"):
        notes.accept_replacement(Memory(db), f"n{plan.event.id}")


def test_an_earlier_block_that_showed_a_replaced_plan_is_corrected(db):
    store = ConversationStore(db)
    builder = ContextBuilder(store, InvestorStore(db), MemoryLimits(), clock=lambda: NOW)
    old = note(db, "plan", "宁德时代回踩30加仓", 5, "300750")
    conversation = store.create_conversation().id
    turn = store.start_turn(conversation, "宁德时代怎么样")
    built = builder.build_messages(conversation, "宁德时代怎么样", before_seq=turn.seq, now=NOW)
    store.finish_turn(
        turn.id,
        status="complete",
        reply_text="答",
        messages=[*built.messages[1:], {"role": "assistant", "content": "答"}],
    )
    new = note(db, "plan", "宁德时代回踩28加仓", 0, "300750")
    notes.accept_replacement(Memory(db), f"n{new.event.id}")
    again = builder.build_messages(conversation, "那现在呢", now=NOW)
    withdrawn = next(s for s in again.context_block.sections if s.key == "withdrawn")
    assert f"#n{old.event.id} 已被新计划 #n{new.event.id} 替换" in withdrawn.render()


def _turn(store, builder, conversation: int, text: str):
    turn = store.start_turn(conversation, text)
    built = builder.build_messages(conversation, text, before_seq=turn.seq, now=NOW)
    added = [*built.messages[1 + built.history_count :], {"role": "assistant", "content": "答"}]
    store.finish_turn(turn.id, status="complete", reply_text="答", messages=added)
    return built


def test_withdrawing_the_replacing_plan_tells_the_model_the_old_one_is_in_force_again(db):
    store = ConversationStore(db)
    builder = ContextBuilder(store, InvestorStore(db), MemoryLimits(), clock=lambda: NOW)
    old = note(db, "plan", "宁德时代回踩30加仓", 5, "300750")
    conversation = store.create_conversation().id
    _turn(store, builder, conversation, "宁德时代怎么样")
    new = note(db, "plan", "宁德时代回踩28加仓", 0, "300750")
    notes.accept_replacement(Memory(db), f"n{new.event.id}")
    told = _turn(store, builder, conversation, "那现在呢")  # this block says the old plan was replaced
    assert "不再有效" in next(s for s in told.context_block.sections if s.key == "withdrawn").render()
    MemoryStore(db).forget(new.event.id, ago(0))
    again = builder.build_messages(conversation, "还按原计划吗", now=NOW)
    withdrawn = next(s for s in again.context_block.sections if s.key == "withdrawn").render()
    assert f"#n{new.event.id} 已删除" in withdrawn
    assert f"#n{old.event.id} 恢复有效" in withdrawn and "宁德时代回踩30加仓" in withdrawn


def test_a_pinned_note_is_injected_whatever_its_age(db):
    old = note(db, "view", "茅台是长期核心资产", 200)
    assert "茅台是长期核心资产" not in block(db, "你好").text
    pinned = notes.pin_note(Memory(db), f"n{old.event.id}", True)
    assert "已置顶" in pin_notice(pinned)
    assert "茅台是长期核心资产" in block(db, "你好").text
    notes.pin_note(Memory(db), f"n{old.event.id}", False)
    assert "茅台是长期核心资产" not in block(db, "你好").text


def test_a_trade_cannot_be_pinned(db):
    trade = record_trade(Account(db), NewTrade("600519", "buy", 1500, 100, None, "贵州茅台", "user"), ago(1))
    with pytest.raises(RequestError, match="只有笔记可以置顶"):
        notes.pin_note(Memory(db), trade.ref, True)


@pytest.mark.parametrize("query", ["300750", "sz300750", "300750.SZ", "３００７５０", "宁德时代", "宁王"])
def test_memory_search_finds_the_note_tagged_with_the_stock(db, query):
    tagged = note(db, "plan", "回踩 28 加仓", 1, "300750")  # the text names no stock
    note(db, "plan", "回踩 1500 加仓", 1, "600519")
    found = [e.ref for e in search_memories(Memory(db), query)]
    assert found == [f"n{tagged.event.id}"]


def test_memory_search_by_a_short_name_and_an_alias(db):
    from pixiu_cli.conversation.selection.aliases import add_alias
    from pixiu_cli.market.store import SecurityMaster

    holding = {"symbol": "002415", "name": "海康威视", "short_names": ["海康"], "shares": 100, "cost": 30}
    InvestorStore(db).replace_all(parse_document({"holdings": [dict(holding, role="satellite")]}, NOW))
    tagged = note(db, "view", "估值偏高", 1, "002415")
    add_alias(SecurityMaster(db), "老海", "002415", NOW)
    for query in ("海康", "海康威视", "老海", "002415"):
        assert [e.ref for e in search_memories(Memory(db), query)] == [f"n{tagged.event.id}"], query


def test_memory_search_by_kind_word(db):
    rule = note(db, "rule", "永远不融资", 1)
    note(db, "view", "消费会复苏", 1)
    assert [e.ref for e in search_memories(Memory(db), "纪律")] == [f"n{rule.event.id}"]
    assert [e.ref for e in search_memories(Memory(db), "rule")] == [f"n{rule.event.id}"]


def test_a_trade_shown_in_a_block_counts_as_injected(db):
    trade = record_trade(Account(db), NewTrade("600519", "buy", 1500, 100, "回调买入", "贵州茅台", "user"), ago(1))
    store = ConversationStore(db)
    builder = ContextBuilder(store, InvestorStore(db), MemoryLimits(), clock=lambda: NOW)
    built = builder.build_messages(None, "最近的操作怎么样", now=NOW)
    assert ("decision", trade.decision.id) in built.memory_ids
    builder.count_injection(built)
    (entry,) = [e for e in search_memories(Memory(db), None) if e.ref == trade.ref]
    assert entry.inject_count == 1
