"""`pixiu context` shows exactly what was sent: --raw is the stored request, byte for byte;
--pretty indents it; a delta turn's section table lists what that request carried and
names the unchanged sections with the turn that sent them, tokens counted once; a
tool-loop turn shows its first call's sections and the later calls' tool messages."""

from __future__ import annotations

import json
import sqlite3

import pytest

from pixiu_cli.conversation.offline.script import ScriptedReply, ToolCallSpec
from pixiu_cli.conversation.store import add_request_function
from pixiu_cli.conversation.tokenizer.counts import count_tokens
from tests.helpers import FIXTURE, pixiu_for_result

QUESTION = "我的持仓组合怎么样"


def pixiu(env, *args):
    done = pixiu_for_result(env, *args, text=False)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode("utf-8")


def calls(pixiu_home) -> list[tuple]:
    db = sqlite3.connect(pixiu_home / "pixiu.db")
    add_request_function(db)
    try:
        return db.execute(
            "select c.id, t.seq, c.step, call_request(c.id), unpacked(c.context_z) from calls c "
            "join turns t on t.id = c.turn_id order by c.id"
        ).fetchall()
    finally:
        db.close()


@pytest.mark.slow
def test_raw_pretty_and_the_delta_turn_table(server, online_env, pixiu_home):
    pixiu(online_env, "import", str(FIXTURE))
    server.enqueue(ScriptedReply(text="第一轮回答"), ScriptedReply(text="第二轮回答"))
    pixiu(online_env, "ask", QUESTION)
    first_table = pixiu(online_env, "context")
    assert "分节" in first_table and "未变化" not in first_table  # nothing unchanged: no such label
    pixiu(online_env, "ask", "--continue", QUESTION)
    stored = calls(pixiu_home)
    request_json = stored[-1][3]
    assert pixiu(online_env, "context", "--raw") == request_json + "\n"  # the stored bytes, exactly
    pretty = pixiu(online_env, "context", "--pretty")
    assert (
        json.loads(pretty) == json.loads(request_json) and '\n  "messages"' in pretty and pretty != request_json + "\n"
    )

    info = json.loads(stored[-1][4])
    unchanged = [s for s in info["sections"] if s["unchanged"]]
    sent = [s for s in info["sections"] if not s["unchanged"]]
    assert unchanged and all(s["unchanged_since"] == 1 and s["tokens"] == 0 for s in unchanged)
    block = json.loads(request_json)["messages"][-2]["content"]
    assert info["tokens"] == count_tokens(block) == sum(s["tokens"] for s in sent) + sum(info["overhead"].values())
    table = pixiu(online_env, "context")
    for s in unchanged:
        assert s["title"] in table
    assert table.count("未变化（见第 1 轮）") == len(unchanged)
    assert "（未变化说明）" in table
    # turn 1's table is unchanged by turn 2 and still says nothing about unchanged sections
    assert "未变化" not in pixiu(online_env, "context", "--turn", "1")


@pytest.mark.slow
def test_a_tool_loop_turn_shows_the_first_calls_sections_and_the_tool_messages(server, online_env, pixiu_home):
    pixiu(online_env, "import", str(FIXTURE))
    server.enqueue(ScriptedReply(tool_calls=[ToolCallSpec("get_holdings", "{}")]), ScriptedReply(text="看完持仓了"))
    pixiu(online_env, "ask", QUESTION)
    stored = calls(pixiu_home)
    assert [row[2] for row in stored] == [0, 1] and stored[1][4] is None  # the block is in the first call
    table = pixiu(online_env, "context")
    assert "[上下文信息] 分节" in table and "持仓画像概览" in table
    assert "本轮后续调用新增的消息" in table and "调用 get_holdings" in table
    tool_rows = [line for line in table.splitlines() if "第 2 次调用" in line]
    assert any("tool" in line for line in tool_rows) and any("assistant" in line for line in tool_rows)
