"""Issue check: in the demo, a held stock by short name, then a portfolio question;
/context shows the stock's profile first and every holding's profile second, with token
counts, and --diff names the first differing message."""

from __future__ import annotations

import json
import re
import sqlite3

import pexpect
import pytest

from pixiu_cli.conversation.offline.script import ScriptedReply
from pixiu_cli.conversation.store import add_request_function
from tests.helpers import PROMPT, say, spawn


@pytest.mark.pty
@pytest.mark.slow
def test_demo_context_by_short_name_then_portfolio(server, online_env, pixiu_home):
    child = spawn(online_env, "chat", "--demo")
    child.expect("演示数据")
    child.expect(PROMPT)
    server.enqueue(ScriptedReply(text="海康的回答。"), ScriptedReply(text="组合的回答。"))
    say(child, "海康现在能加仓吗")
    child.expect("海康的回答")
    child.expect(PROMPT)
    say(child, "/context")
    child.expect(r"single_stock · 标的 002415")
    child.expect(r"标的上下文：002415 海康威视\s*│\s*[\d,]+")  # section with its token count
    child.expect(r"profile:\d+")
    child.expect(PROMPT)

    say(child, "我的持仓哪只适合核心仓")
    child.expect("组合的回答")
    child.expect(PROMPT)
    say(child, "/context")
    child.expect("portfolio_review")
    child.expect(r"持仓画像概览.*?│\s*[\d,]+\s*│\s*8\s*│")  # eight holdings, eight profiles
    child.expect(PROMPT)
    say(child, "/context --diff")
    child.expect(r"前 (\d+) 条消息与上次完全相同")
    same = int(child.match.group(1))
    child.expect(PROMPT)
    say(child, "/context 1")
    child.expect("single_stock")
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)

    first, second = server.requests[-2].json, server.requests[-1].json
    assert same == len(first["messages"])  # the whole previous request is the prefix of the next
    block1, block2 = first["messages"][-2]["content"], second["messages"][-2]["content"]
    assert "标的上下文：002415 海康威视" in block1 and "持仓画像概览" not in block1
    assert len(re.findall(r"回测画像", block2.split("## 持仓画像概览")[1].split("\n## ")[0])) == 8
    db = sqlite3.connect(pixiu_home / "demo.db")
    add_request_function(db)
    info = json.loads(db.execute("select unpacked(context_z) from calls order by id desc limit 1").fetchone()[0])
    assert (
        info["intent"] == "portfolio_review" and len([m for m in info["memory_ids"] if m.startswith("profile:")]) == 8
    )
