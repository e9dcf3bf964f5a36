"""Retrying in the REPL, end to end in a pseudo-terminal: `重试中…` (dim) while a call that
failed before any output is tried again, and /retry after a reply broke mid-stream."""

from __future__ import annotations

import json
import sqlite3

import pexpect
import pytest

from pixiu_cli.conversation.ask import RETRIED_LABEL
from pixiu_cli.conversation.offline.script import Fault, ScriptedReply
from pixiu_cli.conversation.views import RETRY_HINT
from tests.helpers import PROMPT, say, spawn

DIM = "\x1b[2m"


@pytest.fixture
def repl(online_env):
    child = spawn(dict(online_env, PIXIU_MAX_RETRIES="2"))
    child.expect(PROMPT)
    yield child
    if child.isalive():
        child.terminate(force=True)


@pytest.mark.pty
@pytest.mark.slow
def test_retrying_is_shown_dimly_before_the_answer(server, repl):
    server.enqueue(
        ScriptedReply(text="不会显示", fault=Fault("drop_stream", after_chunks=1)),
        ScriptedReply(text="第二次尝试的回答。"),
    )
    say(repl, "你好")
    repl.expect("重试中…")
    assert repl.before.endswith(DIM) or DIM in repl.before[-20:]  # printed in the dim style
    repl.expect("第二次尝试的回答")
    repl.expect(PROMPT)
    assert "不会显示" not in repl.before and "错误" not in repl.before
    assert len(server.requests) == 2


@pytest.mark.pty
@pytest.mark.slow
def test_retry_reruns_a_turn_cut_mid_stream(server, repl, pixiu_home):
    server.enqueue(ScriptedReply(text="第一问的回答。"))
    say(repl, "第一问")
    repl.expect("第一问的回答")
    repl.expect(PROMPT)

    server.enqueue(
        ScriptedReply(text="这是一段会被掐断的回复内容", chunk_chars=2, fault=Fault("drop_stream", after_chunks=3))
    )
    say(repl, "会断的问题")
    repl.expect("回复中途断开")
    repl.expect(RETRY_HINT.split("（")[0])
    repl.expect(PROMPT)
    assert len(server.requests) == 2  # a reply already on screen is not retried behind the user's back

    server.enqueue(ScriptedReply(text="重新生成的完整回答。"))
    say(repl, "/retry")
    repl.expect("重新生成的完整回答")
    repl.expect(PROMPT)
    say(repl, "/exit")
    repl.expect(pexpect.EOF)

    retried = json.loads(server.requests[-1].body_bytes)["messages"]
    contents = [m["content"] for m in retried]
    assert contents.count("会断的问题") == 1 and "这是一段" not in contents  # asked once, without the partial
    assert "第一问" in contents and "第一问的回答。" in contents  # earlier history intact
    db = sqlite3.connect(pixiu_home / "pixiu.db")
    turns = db.execute("select seq, user_text, status, reply_text, error from turns order by seq").fetchall()
    db.close()
    assert [t[:3] for t in turns] == [
        (1, "第一问", "complete"),
        (2, "会断的问题", "error"),
        (3, "会断的问题", "complete"),
    ]
    assert turns[1][3] == "这是一段" and turns[1][4].endswith(RETRIED_LABEL.format(seq=3))  # kept, labelled
    assert turns[2][3] == "重新生成的完整回答。"


@pytest.mark.pty
@pytest.mark.slow
def test_retry_refuses_a_complete_turn(server, repl):
    say(repl, "/retry")
    repl.expect("当前对话还没有可以重试的一轮")
    server.enqueue(ScriptedReply(text="完整回答。"))
    say(repl, "问题")
    repl.expect("完整回答")
    repl.expect(PROMPT)
    say(repl, "/retry")
    repl.expect("第 1 轮已完整回答，无需重试")
    repl.expect(PROMPT)
    assert len(server.requests) == 1
