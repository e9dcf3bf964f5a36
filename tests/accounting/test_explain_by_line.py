"""A call's cache explanation is worked out from the lines its request shares with the
previous call's, counted from the stored per-line counts: exactly what encoding both whole
requests gives, while encoding only the line or two where they differ."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pixiu_cli.account.explain import explain, previous_with_reply
from pixiu_cli.conversation.llm.template import ASSISTANT, EOS, MARKERS, USER, render_prompt
from pixiu_cli.conversation.offline.model import OfflineModel
from pixiu_cli.conversation.offline.script import ScriptedReply
from pixiu_cli.conversation.tokenizer import counts as tokens
from pixiu_cli.conversation.tokenizer.counts import NeedsTokenizer, common_prefix_tokens, encode, markers_pattern
from tests.helpers import build_app

AT_MARKERS = markers_pattern(MARKERS)


def _whole(a: str, b: str) -> int:
    x, y = encode(a), encode(b)
    n = 0
    while n < min(len(x), len(y)) and x[n] == y[n]:
        n += 1
    return n


PIECES = st.sampled_from(
    ["贵州茅台", "600519", "1,620.50", " ", "  ", "\n", "\n\n", "\t", "。", "abc", "-8%", USER, ASSISTANT, EOS, "\n \n"]
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(PIECES, max_size=25), st.lists(PIECES, max_size=12), st.lists(PIECES, max_size=12))
def test_the_common_prefix_is_exactly_the_whole_encodings(shared, tail_a, tail_b):
    a, b = "".join(shared + tail_a), "".join(shared + tail_b)
    assert common_prefix_tokens(a, b, AT_MARKERS) == _whole(a, b)
    assert common_prefix_tokens(a, b) == _whole(a, b)


def _conversation(tmp_path, turns: int):
    model = OfflineModel()
    app = build_app(model, tmp_path / "c.db")
    conversation = app.store.create_conversation().id
    for i in range(turns):
        model.enqueue(ScriptedReply(text=f"第 {i} 个回答：茅台估值合理，注意仓位。\n\n- 要点一\n- 要点二 {i * 7}"))
        app.agent.run_turn(conversation, f"茅台现在能买吗？第 {i} 次问")
    return app, app.store.calls_for_conversation(conversation)


def test_explanations_match_encoding_both_requests_and_encode_a_few_lines(tmp_path, monkeypatch):
    app, calls = _conversation(tmp_path, 4)
    encoded: list[int] = []
    real = tokens._tokenizer()

    class Counting:  # the loaded encoder, noting how many characters each call encodes
        def encode(self, text: str) -> list[int]:
            encoded.append(len(text))
            return real.encode(text)

    monkeypatch.setattr(tokens, "_loaded", Counting())
    for previous, current in zip(calls, calls[1:]):
        encoded.clear()
        e = explain(previous, current)
        by_explain = sum(encoded)
        whole = _whole(previous_with_reply(previous), render_prompt(current.request))
        assert (e.common_tokens, e.predicted_hit) == (whole, whole // 64 * 64)
        assert by_explain < 0.02 * len(render_prompt(current.request)), encoded  # a line or two


def test_without_the_tokenizer_a_line_never_counted_asks_for_it(monkeypatch):
    monkeypatch.setattr(tokens, "_loaded", None)
    monkeypatch.setattr(tokens, "_counts", tokens.LineCounts(None, "stamp"))
    tokens._remembered_line_tokens.cache_clear()
    try:
        with pytest.raises(NeedsTokenizer):
            common_prefix_tokens("从未数过的一行 A\n", "从未数过的一行 B\n", may_load=False)
        assert tokens._loaded is None
        assert common_prefix_tokens("", "同样", may_load=False) == 0  # nothing to compare
    finally:
        tokens._remembered_line_tokens.cache_clear()
