"""Issue check: three turns in the demo, /cache shows three rows with hit tokens > 0 from
the second call on; /context --diff carries the cache explanation."""

from __future__ import annotations

import re

import pexpect
import pytest

from pixiu_cli.conversation.offline.script import ScriptedReply
from tests.helpers import PROMPT, say, spawn


@pytest.mark.pty
@pytest.mark.slow
def test_cache_after_three_demo_turns(server, online_env):
    child = spawn(online_env, "chat", "--demo")
    child.expect(PROMPT)
    for question in ("海康现在能加仓吗", "我的持仓哪只适合核心仓", "茅台呢"):
        server.enqueue(ScriptedReply(text=f"关于「{question}」的回答。" * 5))
        say(child, question)
        child.expect("的回答")
        child.expect(PROMPT)
    say(child, "/cache")
    child.expect("每轮缓存命中")
    child.expect(PROMPT)
    table = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", child.before)
    bars = [
        (int(m.group(1)), int(m.group(3).replace(",", "")))
        for m in re.finditer(r"#(\d)\s+[█░]+ (\d+)% · ([\d,]+)/([\d,]+)", table)
    ]
    say(child, "/context --diff")
    child.expect("缓存：只在末尾追加，前缀完整复用")
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    assert [b[0] for b in bars] == [1, 2, 3]
    assert bars[0][1] == 0 and bars[1][1] > 0 and bars[2][1] > 0
    rows = re.findall(r"│\s*\d+\s*│\s*#(\d)·0\s*│\s*([\d,]+)\s*│\s*([\d,]+)\s*│", table)
    assert [r[0] for r in rows] == ["1", "2", "3"]
    assert [int(r[2].replace(",", "")) > 0 for r in rows] == [False, True, True]
    reported = [r.usage["prompt_cache_hit_tokens"] for r in server.requests[-3:]]
    assert [int(r[2].replace(",", "")) for r in rows] == reported
