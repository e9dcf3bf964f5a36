"""/brief and /news in the real REPL (a pty): the brief runs as a turn of the current
conversation, so /context shows its call, and its conclusion is stored as a report."""

from __future__ import annotations

import pytest

from pixiu_cli.kernel.store.database import open_database
from tests.helpers import MARKET_FIXTURES, PROMPT, leave, pixiu_ok, repl_session, say


@pytest.mark.pty
@pytest.mark.slow
def test_brief_and_news_in_the_repl(offline_env, pixiu_home):
    env = dict(offline_env, PIXIU_NOW="2025-06-03T16:00")
    pixiu_ok(env, "import", str(MARKET_FIXTURES / "midea_holding.json"))
    pixiu_ok(env, "data", "import", str(MARKET_FIXTURES / "000333.csv"), "--symbol", "000333", "--name", "美的集团")
    with repl_session(env) as child:
        child.expect(PROMPT)
        say(child, "/news 000333")
        child.expect_exact("没有已存的新闻（000333）")
        child.expect(PROMPT)
        say(child, "/brief now")
        child.expect_exact("用法：/brief [--yes]")
        child.expect(PROMPT)
        say(child, "/brief")
        child.expect_exact("【事实（pixiu 本地计算，不是模型生成）】")
        child.expect_exact("离线评测模型")
        child.expect_exact("结论已保存为报告 report:")
        child.expect(PROMPT)
        say(child, "/context")
        child.expect_exact("每日简报")
        child.expect(PROMPT)
        leave(child)
    db = open_database(pixiu_home / "pixiu.db")
    try:
        row = db.execute("select origin, as_of, turn_seq from reports where origin = 'brief'").fetchone()
    finally:
        db.close()
    assert row == ("brief", "2025-05-30", 1)  # as of the newest stored bar, not of the day it was written
