"""/context in the REPL shows exactly what was sent: the first turn's table has no
未变化 label; the second (delta) turn names its unchanged sections with the turn that sent
them; --raw prints the stored request unindented, --pretty indented; a tool-loop turn
shows its first call's sections and the later calls' tool messages."""

from __future__ import annotations

import re
import sqlite3
import subprocess

import pexpect
import pytest

from pixiu_cli.conversation.offline.script import ScriptedReply, ToolCallSpec
from tests.helpers import FIXTURE, PIXIU_BIN, PROMPT, say, spawn

QUESTION = "我的持仓组合怎么样"


@pytest.mark.pty
@pytest.mark.slow
def test_context_table_raw_pretty_and_tool_loop(server, online_env, pixiu_home):
    subprocess.run([PIXIU_BIN, "import", str(FIXTURE)], env=online_env, check=True, capture_output=True, timeout=60)
    server.enqueue(
        ScriptedReply(text="第一轮回答。"),
        ScriptedReply(text="第二轮回答。"),
        ScriptedReply(tool_calls=[ToolCallSpec("get_holdings", "{}")]),
        ScriptedReply(text="第三轮回答。"),
    )
    child = spawn(online_env, "chat")
    child.expect(PROMPT)
    say(child, QUESTION)
    child.expect("第一轮回答")
    child.expect(PROMPT)
    say(child, "/context")
    child.expect(r"\[上下文信息\] 分节")
    child.expect("注入的记忆 ID")
    child.expect(PROMPT)
    assert "未变化" not in child.before

    say(child, QUESTION)
    child.expect("第二轮回答")
    child.expect(PROMPT)
    say(child, "/context")
    child.expect(r"未变化（见第 1 轮）")
    child.expect("未变化，其 tokens 计在它们发送的那一轮")
    child.expect(PROMPT)
    say(child, "/context --raw")
    child.expect(r"\]\}\}\}\]\}\r\n")  # the end of the tools list, the last key stored
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\r|\n", "", child.before)
    assert '{"model":"deepseek-test","stream":true,"messages":[{"role":"system","content":"你是 pixiu' in shown
    child.expect(PROMPT)
    say(child, "/context --pretty")
    child.expect(r'"messages": \[\r?\n +\{')
    child.expect(PROMPT)

    say(child, "看看我的持仓")
    child.expect("第三轮回答")
    child.expect(PROMPT)
    say(child, "/context")
    child.expect(r"\[上下文信息\] 分节")
    child.expect("本轮后续调用新增的消息")
    child.expect("调用 get_holdings")
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)

    db = sqlite3.connect(pixiu_home / "pixiu.db")
    steps = db.execute(
        "select t.seq, c.step, c.context_z is not null from calls c join turns t on t.id = c.turn_id order by c.id"
    ).fetchall()
    assert steps == [(1, 0, 1), (2, 0, 1), (3, 0, 1), (3, 1, 0)]
