"""Follow-ups in the REPL are operations on the conversation's focus: after a dividend
question about one stock, 和X比呢 adds X (both stocks' sections), and 除了这俩… turns to the
rest of the portfolio; /context names each operation and the question it used."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pexpect
import pytest

from pixiu_cli.conversation.offline.script import ScriptedReply
from tests.helpers import PIXIU_BIN, PROMPT, say, spawn

ACCOUNT = Path(__file__).resolve().parents[2] / "data" / "selection" / "tune_5" / "datasets" / "convo_chen.json"


@pytest.mark.pty
@pytest.mark.slow
def test_an_add_then_a_complement_in_the_repl(server, online_env):
    subprocess.run([PIXIU_BIN, "import", str(ACCOUNT)], env=online_env, check=True, capture_output=True, timeout=60)
    server.enqueue(*(ScriptedReply(text=f"第{n}轮回答。") for n in "一二三"))
    child = spawn(online_env, "chat")
    child.expect(PROMPT)
    say(child, "神华的分红怎么样")
    child.expect("第一轮回答")
    child.expect(PROMPT)
    say(child, "和汾酒比呢")
    child.expect("第二轮回答")
    child.expect(PROMPT)
    say(child, "/context")
    child.expect("意图 single_stock · 标的 601088,")  # the title may wrap here
    child.expect("600809")
    child.expect("操作：加入比较（add），作用于上一轮的问题“神华的分红怎么样”")
    child.expect(PROMPT)
    say(child, "除了这俩，其他的怎么样")
    child.expect("第三轮回答")
    child.expect(PROMPT)
    say(child, "/context")
    child.expect("意图 portfolio_review · 标的 无")
    child.expect("操作：转向其余持仓（complement），作用于上一轮的问题“和汾酒比呢”")
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    added_block = server.requests[1].json["messages"][-2]["content"]  # the block sent before 和汾酒比呢
    assert added_block.startswith("[上下文信息]") and "600809" in added_block
