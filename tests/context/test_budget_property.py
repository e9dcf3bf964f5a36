"""Random data sets × random budgets × random question sequences: building a turn's
messages never raises and the [上下文信息] block never exceeds its budget, on the first turn
and on every later one (the delta path: earlier blocks in the history, some sections sent
unchanged), including turns after the history was summarised.

This is the test that would have caught `KeyError: 'scene'`: a budget that drops a whole
section, and an earlier block that lets the delta apply."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pixiu_cli.conversation.context.block import is_context_message
from pixiu_cli.conversation.context.builder import ContextBuilder
from pixiu_cli.conversation.context.memory_classes import MemoryLimits
from pixiu_cli.conversation.store import ConversationStore
from pixiu_cli.conversation.tokenizer.counts import count_tokens
from pixiu_cli.home.document_file import load_document
from pixiu_cli.home.model import Alert, Decision, DomainData, Holding, MemoryEvent, NewsItem, Profile, Report, Signal
from pixiu_cli.home.store import InvestorStore
from pixiu_cli.kernel.store.database import open_database
from tests.helpers import NOW

DEMO = Path(__file__).resolve().parents[2] / "data" / "demo" / "portfolio.json"
NAMES = (
    "贵州茅台",
    "海康威视",
    "宁德时代",
    "招商银行",
    "中国平安",
    "比亚迪",
    "长江电力",
    "万科Ａ",
    "紫金矿业",
    "美的集团",
)
QUESTIONS = (
    "我的持仓组合怎么样",
    "帮我复盘一下整个组合",
    "今天大盘怎么样",
    "你好",
    "我该加仓吗",
    "止损纪律是什么",
    "茅台最近怎么样",
    "600519 还能拿吗",
    "海康和宁德哪个好",
    "{symbol} 怎么看",
    "{name}的回测画像",
    "整体仓位是不是太重了",
)


def stamp(days: float) -> str:
    return (NOW - timedelta(days=days)).isoformat(timespec="seconds")


@st.composite
def data_sets(draw) -> DomainData:
    count = draw(st.sampled_from([0, 1, 3, 12, 40, 150]))
    symbols = [f"{600000 + 7 * i:06d}" for i in range(count)]
    days = st.floats(0, 900)
    holdings = [
        Holding(
            s,
            NAMES[i % len(NAMES)] + (str(i) if i >= len(NAMES) else ""),
            (NAMES[i % len(NAMES)][:2],) if i < len(NAMES) else (),
            draw(st.sampled_from([100.0, 1000.0, 5.0, 30000.0])),
            draw(st.sampled_from([1.0, 33.3, 1650.5])),
            draw(st.sampled_from(["core", "satellite"])),
            draw(st.one_of(st.none(), days.map(stamp))),
        )
        for i, s in enumerate(symbols)
    ]
    chosen = st.sampled_from(symbols) if symbols else st.just("600519")
    profiles = [
        Profile(
            0,
            draw(chosen),
            "均线趋势",
            None,
            0.1,
            -0.3,
            0.5,
            0.8,
            "core",
            "回撤大" * draw(st.integers(1, 20)),
            stamp(draw(days)),
        )
        for _ in range(draw(st.integers(0, count + 2)))
    ]
    news = [
        NewsItem(
            0, draw(chosen), "业绩预告" * draw(st.integers(1, 8)), None, "公告", None, stamp(draw(st.floats(0, 20)))
        )
        for _ in range(draw(st.integers(0, 8)))
    ]
    signals = [
        Signal(0, draw(chosen), 0.4, "偏多", {"趋势": 0.6}, stamp(draw(st.floats(0, 30))))
        for _ in range(draw(st.integers(0, 5)))
    ]
    reports = [
        Report(0, "周报", (), "结论" * draw(st.integers(1, 30)), stamp(draw(st.floats(0, 4))))
        for _ in range(draw(st.integers(0, 4)))
    ]
    decisions = [
        Decision(0, draw(chosen), "buy", 10.0, 100.0, "理由" * draw(st.integers(0, 10)), stamp(draw(st.floats(0, 8))))
        for _ in range(draw(st.integers(0, 6)))
    ]
    alerts = [
        Alert(0, draw(chosen), "跌破年线", "触发预警" * draw(st.integers(1, 10)), stamp(draw(st.floats(0, 1))))
        for _ in range(draw(st.integers(0, 4)))
    ]
    notes = [
        MemoryEvent(
            0,
            "user_note",
            draw(st.sampled_from(["view", "plan", "rule"])),
            draw(st.one_of(st.none(), chosen)),
            "跌破年线就减仓" * draw(st.integers(1, 15)),
            stamp(draw(st.floats(0, 40))),
            "user",
        )
        for _ in range(draw(st.integers(0, 8)))
    ]
    persona = (
        {"risk_label": "稳健型", "constraints": "单只不超过 25%" * draw(st.integers(1, 10))}
        if draw(st.booleans())
        else {}
    )
    return DomainData(holdings, profiles, news, signals, reports, decisions, alerts, notes, persona)


def run_conversation(builder: ContextBuilder, questions: list[str], summarise_after: int | None) -> int:
    """Every question as a turn of one conversation; returns how many turns took the delta path."""
    store = builder.store
    conversation = store.create_conversation().id
    holdings = builder.domain.holdings()
    deltas = 0
    for i, template in enumerate(questions):
        h = holdings[i % len(holdings)] if holdings else None
        question = template.format(symbol=h.symbol if h else "600519", name=h.name if h else "茅台")
        now = NOW + timedelta(minutes=3 * i)
        turn = store.start_turn(conversation, question)
        built = builder.build_messages(conversation, question, before_seq=turn.seq, now=now)
        block = built.context_block
        assert block.tokens == count_tokens(block.text) <= builder.limits.budget_tokens
        assert built.messages[-2]["content"] == block.text and built.messages[-1]["content"] == question
        if any(is_context_message(m) for m in built.messages[1:-2]) and block.unchanged:
            deltas += 1
            assert set(block.unchanged_since) == set(block.unchanged)
        store.finish_turn(
            turn.id,
            status="complete",
            reply_text="答",
            messages=built.messages[1 + built.history_count :] + [{"role": "assistant", "content": "答"}],
        )
        if summarise_after is not None and i == summarise_after:
            store.set_summary(conversation, "用户问过组合与茅台", turn.seq)
    return deltas


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    data_sets(),
    st.integers(200, 6000),
    st.lists(st.sampled_from(QUESTIONS), min_size=2, max_size=6),
    st.one_of(st.none(), st.integers(0, 3)),
)
@pytest.mark.slow
def test_any_data_any_budget_any_questions_never_raise_nor_overflow(
    tmp_path_factory, data, budget, questions, summarise_after
):
    db = open_database(tmp_path_factory.mktemp("p") / "p.db")
    domain = InvestorStore(db)
    domain.replace_all(data)
    builder = ContextBuilder(ConversationStore(db), domain, MemoryLimits(budget_tokens=budget), clock=lambda: NOW)
    run_conversation(builder, questions, summarise_after)


def demo_builder(tmp_path, budget: int) -> ContextBuilder:
    db = open_database(tmp_path / f"demo{budget}.db")
    domain = InvestorStore(db)
    domain.replace_all(load_document(DEMO, NOW))
    return ContextBuilder(ConversationStore(db), domain, MemoryLimits(budget_tokens=budget), clock=lambda: NOW)


@pytest.mark.parametrize("budget", [1200, 1500, 1800, 2100, 2400])
def test_the_same_portfolio_question_twice_on_the_demo_data(tmp_path, budget):
    """Reproduction (c) of the crash: the budget drops the scene section whole, the second
    turn's delta then looked its title up among the surviving sections."""
    builder = demo_builder(tmp_path, budget)
    deltas = run_conversation(builder, ["我的持仓组合怎么样", "我的持仓组合怎么样"], None)
    assert deltas == 1


def test_the_delta_path_is_exercised_with_a_dropped_section(tmp_path):
    builder = demo_builder(tmp_path, 1500)
    store = builder.store
    conversation = store.create_conversation().id
    turn = store.start_turn(conversation, "我的持仓组合怎么样")
    first = builder.build_messages(conversation, "我的持仓组合怎么样", before_seq=turn.seq, now=NOW)
    assert "scene" in first.context_block.omitted and "scene" not in {s.key for s in first.context_block.sections}
    store.finish_turn(
        turn.id,
        status="complete",
        reply_text="答",
        messages=first.messages[1:] + [{"role": "assistant", "content": "答"}],
    )
    second = builder.build_messages(conversation, "我的持仓组合怎么样", now=NOW + timedelta(minutes=1))
    block = second.context_block
    assert block.unchanged and "本轮场景 1 条" in block.text  # the dropped section is named by its title
    assert block.unchanged_since == dict.fromkeys(block.unchanged, 1)
