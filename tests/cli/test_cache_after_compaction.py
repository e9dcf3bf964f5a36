"""`pixiu cache` names the miss after a history compaction as the compaction (压缩历史), not
as a turn withdrawn with /retry or /undo: both drop earlier turns from the request, but only a
compaction sends a new summary in the block (the stored request says which)."""

from __future__ import annotations

import json

from tests.helpers import clean_env, in_process_ok


def _causes(env) -> list[tuple[str, str]]:
    report = json.loads(in_process_ok(env, "cache", "--json"))
    return [(c["break"]["cause"], c["break"]["label"]) for c in report["calls"]]


def test_the_miss_after_a_compaction_says_compaction(pixiu_home):
    (pixiu_home / "config.toml").write_text("[context]\nhistory_budget_tokens = 150\n", encoding="utf-8")
    env = clean_env(pixiu_home, PIXIU_NOW="2026-11-30T10:00")
    in_process_ok(env, "ask", "第一问：茅台最近怎么样")
    asked = in_process_ok(env, "ask", "--continue", "第二问：宁德时代呢", warnings=True)
    assert "压缩为摘要" in asked  # the turn said it compacted the history
    (first, _), (cause, label) = _causes(env)
    assert (first, cause) == ("first_call", "history_compacted")
    assert "压缩历史" in label and "/retry" not in label and "/undo" not in label
    shown = in_process_ok(env, "cache")
    assert "压缩历史：较早的轮次已压缩为摘要" in shown and "/retry 或 /undo" not in shown


def test_without_a_compaction_the_next_turn_only_appends(pixiu_home):
    env = clean_env(pixiu_home, PIXIU_NOW="2026-11-30T10:00")
    in_process_ok(env, "ask", "第一问：茅台最近怎么样")
    in_process_ok(env, "ask", "--continue", "第二问：宁德时代呢")
    assert [cause for cause, _ in _causes(env)] == ["first_call", "append_only"]
