"""/model, /save, /copy, /undo, /sessions (in Beijing time) and the status line's cost, end
to end in a pty against the offline server as a provider (the real client, real HTTP)."""

from __future__ import annotations

import json
import os
import sqlite3

import pytest

from pixiu_cli.conversation.offline.script import ScriptedReply
from tests.helpers import MARKET_FIXTURES, PROMPT, PROMPT_DONE, PROMPT_READING, leave, pixiu_ok, repl_session, say


def _fake_xclip(tmp_path):
    """An `xclip` that writes what it is given to a file (the test's clipboard)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    clipboard = tmp_path / "clipboard.txt"
    tool = bin_dir / "xclip"
    tool.write_text(f"#!/bin/sh\ncat > '{clipboard}'\n", encoding="utf-8")
    tool.chmod(0o755)
    return bin_dir, clipboard


def _ask(child, text):
    """What the REPL printed for one input, up to the next prompt that reads keys."""
    say(child, text)
    child.expect_exact(PROMPT_DONE)
    child.expect_exact(PROMPT_READING)
    return child.before


@pytest.mark.pty
@pytest.mark.slow
def test_model_save_copy_undo_and_cost(server, online_env, pixiu_home, tmp_path):
    bin_dir, clipboard = _fake_xclip(tmp_path)
    env = dict(
        online_env, PIXIU_MODEL="deepseek-flash", DISPLAY=":99", PATH=f"{bin_dir}{os.pathsep}{online_env['PATH']}"
    )
    server.enqueue(ScriptedReply(text="第一条回复：茅台估值合理。"), ScriptedReply(text="第二条回复：继续持有。"))
    server.enqueue(ScriptedReply(text="第三条回复：换模型之后。"))
    with repl_session(env) as child:
        child.expect(PROMPT)
        shown = _ask(child, "茅台怎么样")
        assert "第一条回复" in shown and "费用 ¥0.0" in shown  # a priced model: the turn's cost in ¥
        _ask(child, "还能买吗")
        shown = _ask(child, "/copy")
        assert "已复制第 2 轮的回复" in shown and "xclip" in shown
        assert clipboard.read_text(encoding="utf-8") == "第二条回复：继续持有。"
        shown = _ask(child, "/undo")
        assert "已撤回第 2 轮" in shown
        shown = _ask(child, "/model deepseek-v4-pro")
        assert "已切换到模型 deepseek-v4-pro" in shown
        shown = _ask(child, "/model")
        assert "当前模型：deepseek-v4-pro" in shown
        _ask(child, "那现在呢")
        target = tmp_path / "对话.md"
        shown = _ask(child, f"/save {target}")
        assert "已保存对话" in shown
        shown = _ask(child, f"/save {target}")
        assert "文件已存在" in shown  # never overwritten
        leave(child)
    saved = target.read_text(encoding="utf-8")
    assert "## 第 1 轮 · 完成" in saved and "第一条回复：茅台估值合理。" in saved
    assert "## 第 2 轮 · 完成" in saved and "已用 /undo 撤回" in saved  # the record keeps the undone turn
    assert "第三条回复：换模型之后。" in saved
    last = server.requests[-1].json
    assert last["model"] == "deepseek-v4-pro"
    sent = json.dumps(last["messages"], ensure_ascii=False)
    assert "茅台怎么样" in sent and "还能买吗" not in sent and "第二条回复" not in sent  # undone: not sent
    db = sqlite3.connect(pixiu_home / "pixiu.db")
    assert db.execute("select model from conversations").fetchone()[0] == "deepseek-v4-pro"


@pytest.mark.pty
@pytest.mark.slow
def test_copy_without_a_clipboard_says_so(server, online_env, tmp_path):
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    env = dict(online_env, PATH=str(empty))
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    server.enqueue(ScriptedReply(text="一条回复。"))
    with repl_session(env) as child:
        child.expect(PROMPT)
        _ask(child, "你好")
        shown = _ask(child, "/copy")
        assert "没有可用的剪贴板" in shown and "/save" in shown
        leave(child)


@pytest.mark.pty
@pytest.mark.slow
def test_the_brief_status_line_has_its_cost_like_any_turn(server, online_env, pixiu_home):
    env = dict(online_env, PIXIU_MODEL="deepseek-flash", PIXIU_NOW="2025-06-03T16:00")
    pixiu_ok(env, "import", str(MARKET_FIXTURES / "midea_holding.json"))
    server.enqueue(ScriptedReply(text="今日简报。\n\n结论：继续持有美的。"))
    with repl_session(env) as child:
        child.expect(PROMPT)
        shown = _ask(child, "/brief --yes")
        assert "结论已保存为报告" in shown and "费用 ¥0.0" in shown  # the same status line as a question's
        leave(child)


@pytest.mark.pty
@pytest.mark.slow
def test_sessions_shows_beijing_time(server, online_env, pixiu_home):
    import subprocess
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from tests.helpers import PIXIU_BIN

    server.enqueue(ScriptedReply(text="好的。"))
    assert subprocess.run([PIXIU_BIN, "ask", "第一问"], env=online_env, capture_output=True, timeout=60).returncode == 0
    stamp = sqlite3.connect(pixiu_home / "pixiu.db").execute("select updated_at from conversations").fetchone()[0]
    moment = datetime.fromisoformat(stamp)
    beijing = moment.astimezone(ZoneInfo("Asia/Shanghai")).strftime("%Y-%m-%d %H:%M")
    utc = moment.strftime("%Y-%m-%d %H:%M")
    assert beijing != utc
    with repl_session(online_env) as child:
        child.expect(PROMPT)
        say(child, "/sessions")
        child.expect("最近的对话")
        child.expect(PROMPT)
        shown = child.before
        leave(child)
    assert beijing in shown and "北京时间" in shown and utc not in shown and "UTC" not in shown
