"""The REPL end to end in a pseudo-terminal: type, stream, Ctrl-C, continue, exit, then
read the database the session left behind."""

from __future__ import annotations

import json
import re
import sqlite3

import pexpect
import pyte
import pytest

from pixiu_cli.conversation.offline.script import ScriptedReply
from pixiu_cli.conversation.store import add_request_function
from tests.helpers import PLANTED_KEY, PROMPT, PROMPT_READING, say, spawn, wait_for_new_prompt


@pytest.fixture
def repl(online_env):
    child = spawn(online_env)
    yield child
    if child.isalive():
        child.terminate(force=True)


@pytest.mark.pty
@pytest.mark.slow  # a new process (or a terminal) is what is checked: whole suite only
def test_two_turns_ctrl_c_continue_exit(server, repl, pixiu_home):
    child = repl
    child.expect(PROMPT)
    server.enqueue(ScriptedReply(text="第一条回复：贵州茅台是白酒龙头。"))
    say(child, "茅台怎么看")
    child.expect("白酒龙头")
    child.expect("缓存命中")
    child.expect(PROMPT)

    server.enqueue(ScriptedReply(text="第二条回复：仓位请控制在三成以内。"))
    say(child, "仓位呢")
    child.expect("三成以内")
    child.expect(r"缓存命中 \d+%")
    child.expect(PROMPT)

    # Longer than any test waits (about 100 s): Ctrl-C lands mid-stream however loaded the
    # machine is, once streamed text is on the screen.
    slow = "这是一条很慢的回复，" * 200
    server.enqueue(ScriptedReply(text=slow, chunk_chars=2, chunk_delay=0.1))
    say(child, "讲个长的")
    child.expect("很慢")  # streamed text on screen: the reply is streaming
    child.sendintr()
    child.expect("已中断")
    child.expect_exact(PROMPT_READING)

    server.enqueue(ScriptedReply(text="继续后的回复正常。"))
    say(child, "继续")
    child.expect("继续后的回复正常")
    child.expect(PROMPT)
    say(child, "/exit")
    child.expect(pexpect.EOF)

    db = sqlite3.connect(pixiu_home / "pixiu.db")

    add_request_function(db)
    turns = db.execute("select seq, user_text, status, reply_text from turns order by seq").fetchall()
    assert [(t[0], t[1], t[2]) for t in turns] == [
        (1, "茅台怎么看", "complete"),
        (2, "仓位呢", "complete"),
        (3, "讲个长的", "interrupted"),
        (4, "继续", "complete"),
    ]
    partial = turns[2][3]
    assert partial and slow.startswith(partial) and len(partial) < len(slow)
    calls = db.execute("select call_request(id), status from calls order by id").fetchall()
    assert [c[1] for c in calls] == ["complete", "complete", "interrupted", "complete"]
    for request_json, _ in calls:
        assert json.loads(request_json)["messages"][0]["role"] == "system"
    # the request after the interruption carries the partial reply as history
    last = json.loads(calls[-1][0])["messages"]
    assert {"role": "assistant", "content": partial} in last
    assert last[-1] == {"role": "user", "content": "继续"}
    db.close()
    for path in pixiu_home.rglob("*"):
        if path.is_file():
            assert PLANTED_KEY.encode() not in path.read_bytes(), path


@pytest.mark.pty
@pytest.mark.slow
def test_slash_commands_help_sessions_new_resume(server, repl):
    child = repl
    child.expect(PROMPT)
    say(child, "/help")
    for name in ("/exit", "/help", "/new", "/resume ID", "/sessions"):
        child.expect_exact(name)
    child.expect(PROMPT)
    server.enqueue(ScriptedReply(text="答一"), ScriptedReply(text="答二"))
    say(child, "对话一的问题")
    child.expect("答一")
    child.expect(PROMPT)
    say(child, "/new")
    child.expect("新对话")
    child.expect(PROMPT)
    say(child, "对话二的问题")
    child.expect("答二")
    child.expect(PROMPT)
    say(child, "/sessions")
    child.expect("对话二的问题")
    child.expect("对话一的问题")
    child.expect(PROMPT)
    say(child, "/resume 1")
    child.expect("已切换到对话 1")
    child.expect(PROMPT)
    say(child, "/resume 99")
    child.expect("没有 ID 为 99")
    child.expect(PROMPT)
    say(child, "/nosuch")
    child.expect("未知命令 /nosuch")
    child.expect(PROMPT)
    server.enqueue(ScriptedReply(text="答三"))
    say(child, "回到对话一")
    child.expect("答三")
    child.expect(PROMPT)
    roles = [
        m["content"]
        for m in server.requests[-1].json["messages"]
        if m["role"] == "user" and not m["content"].startswith("[上下文信息]")
    ]
    assert roles == ["对话一的问题", "回到对话一"]
    child.sendeof()
    child.expect(pexpect.EOF)


@pytest.mark.pty
@pytest.mark.slow
def test_multiline_input_and_double_ctrl_c_exit(server, repl):
    child = repl
    child.expect(PROMPT)
    server.enqueue(ScriptedReply(text="收到多行"))
    child.send("第一行")
    child.send("\x1b\r")  # Alt-Enter inserts a newline
    child.send("第二行")
    child.send("\n")  # Ctrl-J inserts a newline too
    child.send("第三行\r")
    child.expect("收到多行")
    child.expect(PROMPT)
    assert server.requests[-1].json["messages"][-1]["content"] == "第一行\n第二行\n第三行"
    # a bracketed paste with newlines stays one message
    server.enqueue(ScriptedReply(text="收到粘贴"))
    child.send("\x1b[200~粘贴一\n粘贴二\x1b[201~")
    child.send("\r")
    child.expect("收到粘贴")
    child.expect(PROMPT)
    assert server.requests[-1].json["messages"][-1]["content"] == "粘贴一\n粘贴二"
    child.sendintr()
    child.expect("再按一次 Ctrl-C 退出")
    child.sendintr()
    child.expect(pexpect.EOF)


@pytest.mark.pty
@pytest.mark.slow
def test_slash_completion(repl):
    child = repl
    child.expect(PROMPT)
    child.send("/ses")
    child.send("\t")
    child.expect("sessions")
    child.send("\r")
    child.expect("还没有对话|最近的对话")
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)


@pytest.mark.pty
@pytest.mark.slow
def test_offline_banner(offline_env):
    child = spawn(offline_env)
    child.expect("离线模式")
    child.expect(PROMPT)
    say(child, "你好")
    child.expect("离线")
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)


@pytest.mark.pty
@pytest.mark.slow
def test_reasoning_is_shown_dimmed_then_the_answer(server, repl, pixiu_home):
    child = repl
    child.expect(PROMPT)
    server.enqueue(ScriptedReply(text="结论：控制仓位。", reasoning="先看持仓，再看纪律。"))
    say(child, "帮我想想")
    child.expect("思考中")
    child.expect("缓存命中")
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", child.before)
    assert shown.index("先看持仓，再看纪律") < shown.index("结论：控制仓位")
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    db = sqlite3.connect(pixiu_home / "pixiu.db")
    add_request_function(db)
    assert db.execute("select reasoning_text, reply_text from calls").fetchone() == (
        "先看持仓，再看纪律。",
        "结论：控制仓位。",
    )


@pytest.mark.pty
@pytest.mark.slow
def test_markdown_is_rendered_and_input_history_persists(server, online_env, pixiu_home):
    child = spawn(online_env)
    child.expect(PROMPT)
    server.enqueue(ScriptedReply(text="**重点**：`仓位` 不超过三成"))
    say(child, "记住这句话的历史")
    child.expect("缓存命中")
    # What the terminal shows: the open block streams as raw text, erased when it is rendered
    screen = pyte.Screen(110, 40)
    pyte.Stream(screen).feed(child.before)
    shown = [line.rstrip() for line in screen.display]
    child.expect(PROMPT)
    assert "重点：仓位 不超过三成" in shown  # Markdown rendered by rich
    assert not any("**" in line or "`" in line for line in shown)
    child.sendeof()
    child.expect(pexpect.EOF)
    assert "记住这句话的历史" in (pixiu_home / "input_history").read_text(encoding="utf-8")
    again = spawn(online_env)  # a new session recalls it with the Up arrow
    again.expect(PROMPT)
    again.send("\x1b[A")
    again.expect("记住这句话的历史")
    again.send("\x03")
    wait_for_new_prompt(again)  # a redraw of the old prompt would match PROMPT, and Ctrl-D would reach it
    again.sendeof()
    again.expect(pexpect.EOF)
