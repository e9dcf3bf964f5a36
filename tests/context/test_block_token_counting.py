"""The block's token budget is kept by arithmetic on remembered per-line counts (a
performance fix: re-tokenising the whole block after every dropped item was far too slow
with hundreds of holdings; figures in benchmarks/README.md). These tests pin that it is exactly what the straightforward
way gives: count_tokens of the rendered text after every step."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pixiu_cli.conversation.context.block import (
    CONTEXT_CLOSE,
    BlockItem,
    ContextBlock,
    MemoryId,
    Section,
    assemble,
    delta_block,
    render_sections,
)
from pixiu_cli.conversation.tokenizer.counts import count_tokens, count_tokens_by_line

PIECES = st.sampled_from(
    [
        "\n",
        "\r",
        "\r\n",
        "\n\n",
        "\n\r",
        " ",
        "  ",
        "\t",
        "\u2028",
        "\x0b",
        "。",
        "）",
        "（",
        "-",
        "#",
        "##",
        "[",
        "]",
        "1234567",
        "600519",
        "贵州茅台",
        "持仓",
        "abc",
        "ABC",
        "ＡＢ",
        "🙂",
        "<｜User｜>",
        "<think>",
        "é",
        "\u0301",
        "ﬁ",
        "·",
        "「",
        "」",
        "；",
    ]
)
TEXT = st.lists(st.one_of(PIECES, st.text(max_size=3)), max_size=12).map("".join)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))


def reference_assemble(sections: list[Section], budget: int) -> ContextBlock:
    """The straightforward loop: drop one item, render, count the whole text, repeat."""
    titles = {s.key: s.title for s in sections}
    live = [s for s in sections if s.items or not s.trimmable]
    omitted: dict[str, int] = {}
    text = render_sections(live, omitted, titles)
    tokens = count_tokens(text)
    while tokens > budget:
        candidates = [s for s in live if s.trimmable and s.items]
        if not candidates:
            break
        victim = min(candidates, key=lambda s: s.priority)
        index = live.index(victim)
        live[index] = replace(victim, items=victim.items[:-1])
        omitted[victim.key] = omitted.get(victim.key, 0) + 1
        live = [s for s in live if s.items or not s.trimmable]
        text = render_sections(live, omitted, titles)
        tokens = count_tokens(text)
    return ContextBlock(text=text, tokens=tokens, budget=budget, sections=tuple(live), omitted=omitted)


items = st.builds(
    BlockItem,
    TEXT,
    st.sampled_from([None, "事实", "情绪观点"]),
    st.sampled_from([None, "2026-06-01"]),
    st.sampled_from([None, MemoryId("note", 1), MemoryId("profile", 22)]),
)


@st.composite
def section_lists(draw):
    count = draw(st.integers(1, 6))
    return [
        Section(
            f"k{i}",
            draw(TEXT) or f"t{i}",
            tuple(draw(st.lists(items, max_size=6))),
            draw(st.sampled_from([10, 30, 30, 50, 90])),
            note=draw(st.one_of(st.none(), TEXT)),
            trimmable=draw(st.booleans()) or i > 0,
        )
        for i in range(count)
    ]


@SETTINGS
@given(st.lists(st.one_of(PIECES, st.text(max_size=4)), max_size=30).map("".join))
def test_line_counts_add_up_to_the_whole_text(text):
    assert count_tokens_by_line(text) == count_tokens(text)


@pytest.mark.slow
@SETTINGS
@given(section_lists(), st.sampled_from([20, 40, 80, 160, 400]))
def test_trimming_matches_the_straightforward_loop(sections, budget):
    fast, slow = assemble(sections, budget), reference_assemble(sections, budget)
    if slow.tokens > budget:  # only untrimmable text left: both cut it the same way afterwards
        assert fast.omitted == slow.omitted and fast.sections == slow.sections
        return
    assert (fast.text, fast.tokens, fast.omitted, fast.sections) == (
        slow.text,
        slow.tokens,
        slow.omitted,
        slow.sections,
    )
    assert [s.tokens for s in fast.stats()] == [count_tokens(s.render() + "\n\n") for s in fast.sections]


@pytest.mark.slow
@SETTINGS
@given(section_lists(), st.data())
def test_delta_block_counts_its_text_exactly(sections, data):
    block = assemble(sections, 100_000)
    sent = block.record()["sections"]
    previously = {title: digest for title, digest in sent.items() if data.draw(st.booleans())}
    delta = delta_block(block, previously)
    assert delta.tokens == count_tokens(delta.text)
    assert set(delta.unchanged) <= set(previously)


def test_many_holdings_trim_in_one_pass():
    holdings = tuple(
        BlockItem(f"{600000 + i} 测试{i}号 · 卫星仓 · 1,000 股 · 成本 12.34", "事实", "2026-06-01") for i in range(300)
    )
    sections = [
        Section("time", "当前时间", (BlockItem("2026-06-16 10:30 星期二 盘中", "事实"),), 100, trimmable=False),
        Section("holdings", "持仓（300 只）", holdings, 80),
    ]
    block = assemble(sections, 600)
    assert block.tokens == count_tokens(block.text) <= 600
    assert 0 < block.omitted["holdings"] < 300
    kept = next(s for s in block.sections if s.key == "holdings").items
    assert kept == holdings[: len(kept)]  # the last ones go first


@st.composite
def sections_with_rest(draw):
    sections = draw(section_lists())
    return [
        replace(s, rest=_rest_line(len(s.items), draw(TEXT))) if s.trimmable and draw(st.booleans()) else s
        for s in sections
    ]


def _rest_line(total: int, tail: str):
    return lambda kept: f"其余 {total - kept} 条：{tail}"


@pytest.mark.slow
@SETTINGS
@given(sections_with_rest(), st.sampled_from([20, 40, 80, 160, 400]), st.data())
def test_rest_lines_are_counted_exactly_and_the_parts_add_up(sections, budget, data):
    block = assemble(sections, budget)
    assert block.tokens == count_tokens(block.text)
    assert block.tokens <= budget
    if block.text.endswith(f"（已截断）\n{CONTEXT_CLOSE}"):  # only untrimmable text left, cut
        return
    for section in block.sections:
        original = next(s for s in sections if s.key == section.key)
        if section.rest_text:  # the line names exactly what was cut
            assert section.rest_text.startswith(f"其余 {len(original.items) - len(section.items)} 条：")
            assert f"\n- {section.rest_text}" in block.text
    # delta: sent sections plus the frame and notes add up to the block's tokens
    sent = block.record()["sections"]
    delta = delta_block(block, {t: x for t, x in sent.items() if data.draw(st.booleans())})
    assert delta.tokens == count_tokens(delta.text) <= block.tokens
    assert sum(s.tokens for s in delta.stats()) + sum(delta.overhead().values()) == delta.tokens
    assert all(s.tokens == 0 for s in delta.stats() if s.unchanged) and delta.overhead()["frame"] > 0
