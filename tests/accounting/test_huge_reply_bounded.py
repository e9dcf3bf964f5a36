"""The turn after a 20 MB reply is like any turn: nothing hands the tokenizer more than a
bounded piece of text. Once the cache explanation of the next call encoded the whole previous
reply (6,666,666 characters in one call: 76 s and 2.7 GB here, 5 min 50 s and 4.3 GB in the
attack run). The reply is stored whole; its history message is clipped with a marker and the
turn says so. Time and memory of that next turn are measured in
benchmarks/huge_reply_turn.py, not here."""

from __future__ import annotations

import pytest

from pixiu_cli.account.explain import stored_explanation, wait_for_explanations
from pixiu_cli.conversation.agent.loop import SilentSink
from pixiu_cli.conversation.context.quoting import HISTORY_REPLY_CHARS
from pixiu_cli.conversation.offline.script import ScriptedReply
from pixiu_cli.conversation.tokenizer import counts as tokens
from tests.helpers import build_app, http_model

# The most characters one encode may get in these turns: a clipped reply's line (16,000
# characters) and the slack past the shorter text a comparison looks at (4,096), rounded up.
MOST_PER_ENCODE = 21_000
# ...and in the whole next turn: its request (~20,000 characters) counted by the server and
# remembered by the explanation, plus the explanation's own bound (64,000).
MOST_PER_TURN = 120_000


@pytest.fixture
def encoded(monkeypatch):
    """The length of every text handed to the tokenizer, by any caller in this process (the
    offline server runs here too)."""
    lengths: list[int] = []
    real = tokens._tokenizer()

    class Counting:
        def encode(self, text: str) -> list[int]:
            lengths.append(len(text))
            return real.encode(text)

    monkeypatch.setattr(tokens, "_loaded", Counting())
    return lengths


SHAPES = {
    # 20 MB of UTF-8 on one line: the line the explanation once encoded whole
    "one line": "茅台" * 3_333_333,
    # 20 MB in 1,052,631 lines of 19 characters
    "many lines": "贵州茅台的基本面分析，第一部分讲估值。\n" * 350_877,
}


# the fast subset keeps the one-line shape (the line once encoded whole); the whole suite both
@pytest.mark.parametrize(
    "shape", [pytest.param(s, marks=[pytest.mark.slow] if "\n" in SHAPES[s] else []) for s in SHAPES]
)
def test_the_turn_after_a_20_mb_reply_never_tokenises_more_than_a_bounded_piece(tmp_path, server, encoded, shape):
    huge = SHAPES[shape]
    assert len(huge.encode("utf-8")) >= 19_999_990  # 3 bytes a character: 20 MB
    server.enqueue(ScriptedReply(text=huge, chunk_chars=1_000_000), ScriptedReply(text="好的，接着说。"))
    app = build_app(http_model(server), tmp_path / "pixiu.db")
    conversation = app.new_conversation()
    first = app.agent.run_turn(conversation, "写长一点", SilentSink())
    wait_for_explanations()
    assert first.status == "complete" and first.reply == huge
    assert any("回复过长" in line and f"{len(huge):,}" in line for line in first.notices), first.notices

    stored = app.store.turns(conversation)[0]
    assert stored.reply_text == huge  # the reply itself is kept whole
    history = [m for m in stored.messages if m["role"] == "assistant"][0]["content"]
    assert len(history) <= HISTORY_REPLY_CHARS and "此回复过长" in history  # the marker, stored with the turn
    assert history.startswith(huge[:1_000])

    encoded.clear()
    second = app.agent.run_turn(conversation, "继续", SilentSink())
    wait_for_explanations()
    assert second.status == "complete" and second.reply == "好的，接着说。"
    assert len(server.requests[-1].body_bytes) < 100_000  # its request: the clipped reply, not 20 MB
    assert max(encoded) <= MOST_PER_ENCODE and sum(encoded) <= MOST_PER_TURN, (max(encoded), sum(encoded))

    # the next call's cache explanation is still worked out, from the bounded prefix
    calls = app.store.calls_for_conversation(conversation)
    explanation = stored_explanation(calls[-1])
    assert explanation is not None and explanation.cause == "append_only"
    # the whole first request is a common prefix; the 20 MB reply is not all of it
    assert calls[0].usage.prompt_tokens <= explanation.common_tokens < calls[-1].usage.prompt_tokens
    app.db.close()


def test_a_text_too_long_to_encode_is_refused_and_counted_by_estimate_without_being_remembered(monkeypatch):
    monkeypatch.setattr(tokens, "_counts", tokens.LineCounts(None, "stamp"))
    long_line = "估" * (tokens.EXACT_COUNT_CHARS + 1)
    with pytest.raises(tokens.TextTooLong):
        tokens.encode(long_line)
    # 200,001 characters of 3 UTF-8 bytes: 600,003 // 3 + 1 = 200,002 tokens at most
    assert tokens.count_line_tokens(long_line) == 200_002
    assert tokens.count_tokens(long_line) == 200_002
    assert tokens._line_counts().counts == {}  # its key would be the whole line


def test_a_cache_explanation_encodes_at_most_its_spend(encoded):
    # two 300,000-character requests, 20,000 lines each, never counted before, equal but for the end
    lines = [f"第 {i} 行：从未数过的一段文字，编号 ①{chr(0x4E00 + i % 5000)}\n" for i in range(20_000)]
    a = "".join(lines) + "结尾甲"
    b = "".join(lines) + "结尾乙"
    spend = tokens.Spend(tokens.EXPLAIN_CHARS)
    common = tokens.common_prefix_tokens(a, b, spend=spend)
    assert sum(encoded) <= tokens.EXPLAIN_CHARS and spend.left >= 0
    assert common > 0  # the lines past the spend are estimated, not dropped


def test_the_offline_server_counts_a_pasted_megabyte_without_encoding_it(encoded):
    from pixiu_cli.conversation.llm.template import render_prompt
    from pixiu_cli.conversation.offline.chunks import counted_prompt

    pasted = "行情数据," * 250_000  # 1,250,000 characters in one user message
    prompt = render_prompt(
        {"messages": [{"role": "system", "content": "你是助理。"}, {"role": "user", "content": pasted}]}
    )
    exact, count = counted_prompt(prompt)
    assert max(encoded) < 100
    # the estimate of the pasted piece alone: 4 characters of 3 bytes and a comma per 5,
    # 13 bytes × 250,000 = 3,250,000 bytes, // 3 + 1 = 1,083,334
    assert count >= 1_083_334 + len(exact) and len(exact) < 20


def test_a_reply_is_read_only_as_far_as_a_later_request_can_reach(tmp_path, model):
    from pixiu_cli.account.explain import REPLY_REACH

    reply = "前" + "é" * 30_000 + "尾"  # 30,002 characters, 2-byte ones: a cut may split none of them
    model.enqueue(ScriptedReply(text=reply, reasoning="想" * 25_000), "好")
    app = build_app(model, tmp_path / "pixiu.db")
    conversation = app.new_conversation()
    app.agent.run_turn(conversation, "写长一点", SilentSink())
    app.agent.run_turn(conversation, "继续", SilentSink())
    wait_for_explanations()
    whole = app.store.calls_for_conversation(conversation)
    cut = app.store.calls_for_conversation(conversation, REPLY_REACH)
    assert whole[0].reply_text == reply and cut[0].reply_text == reply[:REPLY_REACH]
    assert cut[0].reasoning_text == "想" * REPLY_REACH
    assert cut[1].reply_text == "好" and cut[1].reasoning_text is None  # short ones whole, absent ones absent
    previous = app.store.previous_for_cache(whole[1], REPLY_REACH)
    assert previous.id == whole[0].id and previous.reply_text == reply[:REPLY_REACH]
    assert [t.reply_text for t in app.store.turns(conversation, replies=False)] == [None, None]
    assert [t.reply_text for t in app.store.turns(conversation)] == [reply, "好"]
    app.db.close()


def test_two_long_lines_that_differ_are_compared_within_a_token_of_encoding_both(encoded):
    head = "".join(chr(0x4E00 + (i * 37) % 2000) for i in range(9_000))  # 9,000 CJK characters
    a, b = "系统\n" + head + "甲乙丙" * 100, "系统\n" + head + "\n\n（此回复过长）"
    x, y = tokens.encode(a), tokens.encode(b)
    exact = next(i for i, (p, q) in enumerate(zip(x, y)) if p != q)
    tokens.count_line_tokens(head, "\n\n")  # as the clipped reply's line was, for the history
    encoded.clear()
    estimated = tokens.common_prefix_tokens(a, b)
    assert exact - 2 <= estimated <= exact, (estimated, exact)
    assert max(encoded, default=0) < 100  # the long lines themselves were never encoded whole
