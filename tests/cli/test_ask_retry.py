"""`pixiu ask --retry-partial` (on by default with --json): a reply that breaks after part of it
arrived is asked for again, within the retry budget; the broken attempt stays on record."""

from __future__ import annotations

import json
import sqlite3

import pytest

from pixiu_cli.conversation.agent.loop import RETRIED_PARTIAL
from pixiu_cli.conversation.llm.client import DROPPED
from pixiu_cli.conversation.offline.script import Fault, ScriptedReply
from tests.helpers import pixiu_in_process

CUT = ScriptedReply(text="这是一段会被掐断的回复内容", chunk_chars=2, fault=Fault("drop_stream", after_chunks=3))


def calls(home) -> list[tuple]:
    db = sqlite3.connect(home / "pixiu.db")
    try:
        return db.execute("select status, reply_text, error from calls order by id").fetchall()
    finally:
        db.close()


def test_json_retries_a_cut_reply_and_reports_attempts(server, online_env, pixiu_home):
    server.enqueue(CUT, ScriptedReply(text="完整的第二次回答。"))
    done = pixiu_in_process(dict(online_env, PIXIU_MAX_RETRIES="2"), "ask", "--json", "问题")
    out = json.loads(done.stdout)
    assert done.returncode == 0 and (out["status"], out["reply"], out["attempts"]) == (
        "complete",
        "完整的第二次回答。",
        2,
    )
    first, second = calls(pixiu_home)
    assert first == ("error", "这是一段", DROPPED + RETRIED_PARTIAL)  # the broken attempt, labelled
    assert second == ("complete", "完整的第二次回答。", None)
    assert server.requests[0].body_bytes == server.requests[1].body_bytes


@pytest.mark.slow
def test_retry_partial_prints_only_the_final_reply(server, online_env):
    server.enqueue(CUT, ScriptedReply(text="第二次完整。"))
    done = pixiu_in_process(dict(online_env, PIXIU_MAX_RETRIES="2"), "ask", "--retry-partial", "问题")
    assert done.returncode == 0 and done.stderr == b"" and done.stdout.decode() == "第二次完整。\n"


@pytest.mark.slow
def test_retries_share_one_budget(server, online_env, pixiu_home):
    """Two retries allowed: cut, cut, cut -> three attempts, then the last partial is kept."""
    server.enqueue(CUT, CUT, CUT, ScriptedReply(text="不会被请求"))
    done = pixiu_in_process(dict(online_env, PIXIU_MAX_RETRIES="2"), "ask", "--json", "问题")
    out = json.loads(done.stdout)
    assert done.returncode == 1 and (out["status"], out["reply"], out["attempts"]) == ("error", "这是一段", 3)
    assert out["error"] == DROPPED and len(server.requests) == 3 and server.pending_replies == 1
    assert [c[0] for c in calls(pixiu_home)] == ["error", "error", "error"]


@pytest.mark.slow
def test_without_the_flag_a_cut_reply_is_kept_not_retried(server, online_env):
    env = dict(online_env, PIXIU_MAX_RETRIES="2")
    server.enqueue(CUT, ScriptedReply(text="不会被请求"))
    out = json.loads(pixiu_in_process(env, "ask", "--json", "--no-retry-partial", "问题").stdout)
    assert (out["status"], out["reply"], out["attempts"]) == ("error", "这是一段", 1)
    server.reset()
    server.enqueue(CUT, ScriptedReply(text="不会被请求"))
    plain = pixiu_in_process(env, "ask", "问题二")  # streamed live: what was shown stays, no second answer
    assert plain.returncode == 1 and plain.stdout.decode().strip() == "这是一段"
    assert plain.stderr.decode() == f"错误：{DROPPED}\n" and len(server.requests) == 1
