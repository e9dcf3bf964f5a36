"""The REPL runs on the app's one clock: with PIXIU_NOW set, the block a turn sends says that
time in its 当前时间 line and /context shows it (the real REPL in a pty)."""

from __future__ import annotations

import pytest

from tests.helpers import PROMPT, leave, repl_session, say

PINNED = "2026-03-02T10:00:00"  # a Monday, in the morning session


@pytest.mark.pty
@pytest.mark.slow
def test_the_repl_block_shows_the_pinned_time(offline_env):
    env = dict(offline_env, PIXIU_NOW=PINNED)
    with repl_session(env) as child:
        child.expect(PROMPT)
        say(child, "你好")
        child.expect_exact("离线模式")
        child.expect(PROMPT)
        say(child, "/context --pretty")
        child.expect_exact("## 当前时间\\n- [事实] 2026-03-02 10:00 星期一（北京时间）· 盘中 · 上午连续竞价")
        child.expect(PROMPT)
        leave(child)
