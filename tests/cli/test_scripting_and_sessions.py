"""Scripting pixiu: --version, `ask` reading a pipe, `ask | head -1` completing its turn,
`ask --continue` with nothing to continue, `ask --offline` with a key; and `pixiu sessions`
(list, search, rename, delete, restore), `chat --resume N` with its recap."""

from __future__ import annotations

import json
import sqlite3
import subprocess

import pytest

from pixiu_cli import __version__
from pixiu_cli.conversation.store import add_request_function
from tests.helpers import PIXIU_BIN, PLANTED_KEY, PROMPT, leave, pixiu_in_process, repl_session


def test_version(offline_env):
    done = pixiu_in_process(offline_env, "--version", text=True)
    assert done.returncode == 0 and done.stdout == f"pixiu {__version__}\n"


def test_ask_reads_its_question_from_stdin_when_no_question_is_given(offline_env):
    done = pixiu_in_process(offline_env, "ask", input_bytes="茅台怎么样\n".encode())
    assert done.returncode == 0, done.stderr.decode()
    assert "你的问题是：「茅台怎么样」" in done.stdout.decode()


@pytest.mark.slow  # a real pipe into a new process; the fast subset reads stdin in process, above
def test_ask_reads_a_pipe_when_no_question_is_given(offline_env):
    done = subprocess.run(
        [PIXIU_BIN, "ask"], env=offline_env, input="茅台怎么样".encode(), capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr.decode()
    assert "你的问题是：「茅台怎么样」" in done.stdout.decode()


@pytest.mark.slow  # a pipeline of two processes; the fast subset keeps the piped-stdin one
def test_ask_cut_by_head_still_completes_its_turn(offline_env, pixiu_home):
    # the offline responder remembers a stated plan through the remember tool: a turn with a
    # tool call whose first output line is the tool's notice
    done = subprocess.run(
        f"'{PIXIU_BIN}' ask '我计划宁德时代回踩200再加仓' | head -1",
        shell=True,
        env=offline_env,
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout.decode().count("\n") == 1
    db = sqlite3.connect(pixiu_home / "pixiu.db")
    add_request_function(db)
    status, error, messages = db.execute("select status, error, unpacked(messages_z) from turns").fetchone()
    assert (status, error) == ("complete", None)
    roles = [m["role"] for m in json.loads(messages)]
    assert "tool" in roles and roles[-1] == "assistant"  # the tool call and the final answer stay in history


def test_ask_continue_with_no_conversation_starts_one(offline_env, pixiu_home):
    done = pixiu_in_process(offline_env, "ask", "--json", "--continue", "第一问", text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "complete"
    again = json.loads(pixiu_in_process(offline_env, "ask", "--json", "--continue", "第二问", text=True).stdout)
    assert again["conversation_id"] == json.loads(done.stdout)["conversation_id"] and again["turn"] == 2


def test_ask_offline_with_a_key_says_offline_by_choice(offline_env):
    env = dict(offline_env, DEEPSEEK_API_KEY=PLANTED_KEY)
    done = pixiu_in_process(env, "ask", "--offline", "你好", text=True)
    assert done.returncode == 0
    assert "按 --offline 的要求没有调用模型" in done.stdout
    assert "未配置 API key" not in done.stdout and "设置 DEEPSEEK_API_KEY" not in done.stdout
    assert PLANTED_KEY not in done.stdout + done.stderr


def _three_conversations(env):
    for question in ("茅台怎么样", "宁德时代能买吗", "今天大盘"):
        assert pixiu_in_process(env, "ask", question).returncode == 0


def test_sessions_list_search_rename_delete_restore(offline_env):
    _three_conversations(offline_env)
    listed = pixiu_in_process(offline_env, "sessions", "--json", text=True)
    assert [c["title"] for c in json.loads(listed.stdout)] == ["今天大盘", "宁德时代能买吗", "茅台怎么样"]
    found = json.loads(pixiu_in_process(offline_env, "sessions", "宁德", "--json", text=True).stdout)
    assert [c["id"] for c in found] == [2]
    # the search reads the replies too (the offline reply repeats the question)
    assert [c["id"] for c in json.loads(pixiu_in_process(offline_env, "sessions", "离线", "--json", text=True).stdout)]
    renamed = pixiu_in_process(offline_env, "sessions", "--rename", "2", "宁德的讨论", text=True)
    assert renamed.returncode == 0 and "已把对话 2 改名为：宁德的讨论" in renamed.stderr + renamed.stdout
    deleted = pixiu_in_process(offline_env, "sessions", "--delete", "2", text=True)
    assert "pixiu sessions --restore 2" in deleted.stderr + deleted.stdout
    titles = [c["title"] for c in json.loads(pixiu_in_process(offline_env, "sessions", "--json", text=True).stdout)]
    assert "宁德的讨论" not in titles
    gone = pixiu_in_process(offline_env, "ask", "--conversation", "2", "还在吗", text=True)
    assert gone.returncode == 1 and "没有 ID 为 2 的对话" in gone.stderr
    assert pixiu_in_process(offline_env, "sessions", "--restore", "2").returncode == 0
    titles = [c["title"] for c in json.loads(pixiu_in_process(offline_env, "sessions", "--json", text=True).stdout)]
    assert "宁德的讨论" in titles


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--delete", "99"), "没有 ID 为 99 的对话"),
        (("--restore", "1"), "对话 1 没有被删除"),
        (("--rename", "1"), "新标题为空"),
        (("--rename", "1", "--delete", "1"), "只能选一个"),
    ],
)
def test_sessions_refusals_are_one_line(offline_env, args, message):
    _three_conversations(offline_env)
    done = pixiu_in_process(offline_env, "sessions", *args, text=True)
    assert done.returncode == 1 and message in done.stderr and done.stderr.count("\n") == 1


@pytest.mark.pty
@pytest.mark.slow
def test_chat_resume_shows_the_recap(offline_env):
    _three_conversations(offline_env)
    with repl_session(offline_env, "chat", "--resume", "2") as child:
        child.expect_exact("已切换到对话 2：宁德时代能买吗（1 轮 · 模型 pixiu-offline）")
        child.expect("#1 你：宁德时代能买吗")
        child.expect(PROMPT)
        leave(child)


def test_ask_continue_uses_the_model_the_conversation_was_switched_to(offline_env, pixiu_home):
    from pixiu_cli.conversation.store import ConversationStore
    from pixiu_cli.kernel.store.database import open_database

    env = dict(offline_env, PIXIU_MODEL="deepseek-flash")
    db = open_database(pixiu_home / "pixiu.db")
    try:  # a conversation started with the configured model, then switched as /model does in the REPL
        store = ConversationStore(db)
        switched = store.create_conversation("茅台怎么样", model="deepseek-flash").id
        store.set_model(switched, "deepseek-v4-pro")
    finally:
        db.close()

    def ask(*args: str) -> str:
        done = pixiu_in_process(env, "ask", "--json", *args, text=True)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)["model"]

    assert ask("--continue", "还能买吗") == "deepseek-v4-pro"
    recorded = sqlite3.connect(pixiu_home / "pixiu.db")
    assert recorded.execute("select model from calls order by id desc limit 1").fetchone()[0] == "deepseek-v4-pro"
    assert (
        ask("--conversation", str(switched), "--model", "deepseek-flash", "再问") == "deepseek-flash"
    )  # the flag wins
