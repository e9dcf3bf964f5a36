"""A 30 MB reply on one line: stored whole, counted cheaply, and clipped in what later
requests (the compaction's summary request too) send."""

from __future__ import annotations

import pytest


@pytest.mark.slow
def test_a_huge_reply_is_stored_whole_counted_cheaply_and_clipped_in_what_is_sent_later(tmp_path):
    import time

    from pixiu_cli.conversation.agent.loop import SilentSink
    from pixiu_cli.conversation.offline.model import OfflineModel
    from pixiu_cli.conversation.offline.script import ScriptedReply
    from tests.helpers import build_app

    model = OfflineModel()
    huge = "茅台" * 5_000_000 + "结尾"  # 10 M characters, 30 MB of UTF-8, one line
    model.enqueue(ScriptedReply(text=huge, chunk_chars=1_000_000), "摘要", "好的")
    app = build_app(model, tmp_path / "pixiu.db", compact_budget=2_000)  # the next turn compacts
    conversation = app.new_conversation()
    started = time.monotonic()
    first = app.agent.run_turn(conversation, "写长一点", SilentSink(), retry_partial=True)
    elapsed = time.monotonic() - started
    assert first.status == "complete" and elapsed < 30
    stored = app.store.turns(conversation)[0]
    assert stored.reply_text == huge  # stored whole
    second = app.agent.run_turn(conversation, "继续", SilentSink())
    assert second.status == "complete"
    summary_request, answer_request = (r.body_bytes for r in model.requests[1:])
    assert "需要压缩的对话" in summary_request.decode("utf-8")
    for sent in (summary_request, answer_request):  # once a 60 MB compaction request
        assert len(sent) < 500_000, len(sent)
    assert "此回复过长" in summary_request.decode("utf-8")
    app.db.close()
