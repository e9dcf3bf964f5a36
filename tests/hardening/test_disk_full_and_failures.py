"""A full disk is one plain line that says so and that nothing saved was lost (a real tiny
filesystem: a 1 MB tmpfs in a private mount namespace), and a turn cut off by an error is
labelled with that error, not as if the process had died."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys

import pexpect
import pytest

from pixiu_cli.conversation.offline.script import ScriptedReply
from pixiu_cli.kernel.store.database import DISK_FULL
from tests.helpers import PIXIU_BIN, PROMPT, PROMPT_READING, fill_until_full, say

UNSHARE = ["unshare", "--user", "--map-root-user", "--mount"]
MOUNT = 'mount -t tmpfs -o size=1m tmpfs "$PIXIU_HOME" || exit 99; '


def _can_mount_tmpfs(tmp_path) -> bool:
    if not shutil.which("unshare"):
        return False
    probe = tmp_path / "probe"
    probe.mkdir()
    done = subprocess.run([*UNSHARE, "sh", "-c", f"mount -t tmpfs -o size=64k tmpfs {probe}"], capture_output=True)
    return done.returncode == 0


@pytest.fixture
def tiny_disk(tmp_path):
    if not _can_mount_tmpfs(tmp_path):
        pytest.skip("no unprivileged mount namespaces here")


def rows(db_path):
    db = sqlite3.connect(db_path)
    try:
        return db.execute("select seq, user_text, status, reply_text, error from turns order by id").fetchall()
    finally:
        db.close()


FILL = (
    'fill() { rm -f "$PIXIU_HOME/filler"; dd if=/dev/zero of="$PIXIU_HOME/filler" bs=1k '
    'count=$(( $(df -k --output=avail "$PIXIU_HOME" | tail -1) - 40 )) 2>/dev/null; }; '
)


@pytest.mark.slow  # a new process is what is measured: whole suite only
def test_disk_full_through_ask(server, online_env, pixiu_home, tmp_path, tiny_disk):
    out = tmp_path / "out"
    out.mkdir()
    server.enqueue(ScriptedReply(text="第一条回复。"), ScriptedReply(text="腾出空间后照常。"))
    script = (
        MOUNT + FILL + f'{PIXIU_BIN} ask "第一问" > {out}/1.out 2> {out}/1.err; echo $? > {out}/1.rc; '
        f'fill; head -c 300000 /dev/zero | tr "\\0" "a" | {PIXIU_BIN} ask - > {out}/2.out 2> {out}/2.err; '
        f'echo $? > {out}/2.rc; rm "$PIXIU_HOME/filler"; '
        f'{PIXIU_BIN} ask --conversation 1 "第三问" > {out}/3.out 2> {out}/3.err; echo $? > {out}/3.rc; '
        f'cp "$PIXIU_HOME"/pixiu.db* {out}/'
    )  # with its WAL: committed data may not be checkpointed yet
    done = subprocess.run([*UNSHARE, "sh", "-c", script], env=online_env, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    read = lambda name: (out / name).read_text(encoding="utf-8")  # noqa: E731
    assert read("1.rc").strip() == "0" and "第一条回复" in read("1.out")
    assert read("2.rc").strip() == "1"
    assert read("2.err") == f"错误：{DISK_FULL}\n"
    assert "磁盘已满" in DISK_FULL and "没有丢失" in DISK_FULL
    assert read("3.rc").strip() == "0" and "照常" in read("3.out"), read("3.err")
    turns = [(seq, text, status) for seq, text, status, *_ in rows(out / "pixiu.db")]
    assert turns[0] == (1, "第一问", "complete") and turns[-1] == (2, "第三问", "complete")
    assert all(len(text) < 1000 for _, text, _ in turns)  # the question that did not fit is not half-stored


@pytest.mark.pty
@pytest.mark.slow
def test_disk_full_in_the_repl(server, online_env, pixiu_home, tiny_disk):
    env = dict(online_env, PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm-256color")
    child = pexpect.spawn(
        "unshare",
        [*UNSHARE[1:], "sh", "-c", MOUNT + f"exec {PIXIU_BIN} chat"],
        env=env,
        encoding="utf-8",
        timeout=40,
        dimensions=(40, 110),
    )
    inside = f"/proc/{child.pid}/root{pixiu_home}"
    try:
        child.expect(PROMPT)
        server.enqueue(ScriptedReply(text="第一条回复。"))
        say(child, "第一问")
        child.expect("第一条回复")
        child.expect(PROMPT)
        fill_until_full(f"{inside}/filler")
        say(child, "磁盘满了还问" + "长" * 3000)
        child.expect("磁盘已满")
        child.expect("没有丢失")
        # kept in unsent/, or (when not even that fits) put back at the prompt, which then
        # holds more lines than the screen: wait for the prompt to read keys, not for its text
        child.expect("已放回输入框|已保存在")
        put_back = "已放回输入框" in child.after
        child.expect_exact(PROMPT_READING)
        assert "意外错误" not in child.before
        import os

        os.remove(f"{inside}/filler")
        server.reset()  # in case the full disk stopped the turn after its call
        server.enqueue(ScriptedReply(text="恢复后正常。"))
        if put_back:
            child.send("\x15" * 60)  # Ctrl-U: clear the put-back question, line by line
        say(child, "再问")
        child.expect("恢复后正常")
        child.expect(PROMPT)
        for suffix in ("", "-wal"):  # the REPL still has it open: the WAL holds the latest turns
            shutil.copy(f"{inside}/pixiu.db{suffix}", pixiu_home.parent / f"copy.db{suffix}")
        say(child, "/exit")
        child.expect(pexpect.EOF)
    finally:
        if child.isalive():
            child.terminate(force=True)
    turns = rows(pixiu_home.parent / "copy.db")
    assert turns[0][:3] == (1, "第一问", "complete") and turns[0][3] == "第一条回复。"
    assert turns[-1][1] == "再问" and turns[-1][2] == "complete"


# A real defect stands in for any unexpected error inside a turn: the context builder
# raising as it did before the KeyError('scene') fix.
CRASHING = (
    "import sys; import pixiu_cli.conversation.context.builder as b\n"
    "def boom(*args, **kwargs): raise KeyError('scene')\n"
    "b.ContextBuilder.build_messages = boom\n"
    "from pixiu_cli.cli import main; sys.argv = ['pixiu', *sys.argv[1:]]; main()"
)
CAUSE = "意外错误（KeyError）：'scene'"


@pytest.mark.slow
def test_turn_failed_by_an_error_keeps_its_real_cause(server, online_env, pixiu_home):
    server.enqueue(ScriptedReply(text="第一条回复。"))
    assert subprocess.run([PIXIU_BIN, "ask", "第一问"], env=online_env, capture_output=True, timeout=60).returncode == 0
    done = subprocess.run(
        [sys.executable, "-c", CRASHING, "ask", "--continue", "会崩的问题"],
        env=online_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and done.stderr == f"错误：{CAUSE}\n"
    server.enqueue(ScriptedReply(text="之后照常。"))
    done = subprocess.run(
        [PIXIU_BIN, "ask", "--continue", "下一问"], env=online_env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    turns = rows(pixiu_home / "pixiu.db")
    assert [(t[1], t[2], t[4]) for t in turns] == [
        ("第一问", "complete", None),
        ("会崩的问题", "error", CAUSE),
        ("下一问", "complete", None),
    ]


@pytest.mark.pty
@pytest.mark.slow
def test_turn_failed_by_an_error_in_the_repl_keeps_its_real_cause(server, online_env, pixiu_home):
    env = dict(online_env, PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm-256color")
    child = pexpect.spawn(
        sys.executable, ["-c", CRASHING, "chat"], env=env, encoding="utf-8", timeout=40, dimensions=(40, 110)
    )
    try:
        child.expect(PROMPT)
        say(child, "会崩的问题")
        child.expect("KeyError")
        child.expect(PROMPT)
        say(child, "/exit")
        child.expect(pexpect.EOF)
    finally:
        if child.isalive():
            child.terminate(force=True)
    server.enqueue(ScriptedReply(text="之后照常。"))
    assert (
        subprocess.run(
            [PIXIU_BIN, "ask", "--continue", "下一问"], env=online_env, capture_output=True, timeout=60
        ).returncode
        == 0
    )
    turns = rows(pixiu_home / "pixiu.db")
    assert [(t[1], t[2], t[4]) for t in turns] == [("会崩的问题", "error", CAUSE), ("下一问", "complete", None)]


# Where mount namespaces are not available, SQLite's own size limit gives the same
# SQLITE_FULL end to end: every connection of the real pixiu process may grow the database
# by a few pages only.
SIZE_LIMITED = (
    "import sqlite3, sys\n"
    "connect = sqlite3.connect\n"
    "def limited(*args, **kwargs):\n"
    "    conn = connect(*args, **kwargs)\n"
    "    pages = conn.execute('PRAGMA page_count').fetchone()[0]\n"
    "    conn.execute(f'PRAGMA max_page_count = {pages + 4}')\n"
    "    return conn\n"
    "sqlite3.connect = limited\n"
    "from pixiu_cli.cli import main; sys.argv = ['pixiu', *sys.argv[1:]]; main()\n"
)


@pytest.mark.slow
def test_database_size_limit_reads_as_disk_full(server, online_env, pixiu_home):
    server.enqueue(ScriptedReply(text="第一条回复。"))
    assert subprocess.run([PIXIU_BIN, "ask", "第一问"], env=online_env, capture_output=True, timeout=60).returncode == 0
    done = subprocess.run(
        [sys.executable, "-c", SIZE_LIMITED, "ask", "--continue", "-"],
        env=online_env,
        input="长" * 100_000,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and done.stderr.startswith(f"错误：{DISK_FULL}"), done.stderr
    assert "你的问题已保存在" in done.stderr and done.stderr.count("\n") == 1  # the question is kept in unsent/
    server.enqueue(ScriptedReply(text="之后照常。"))
    assert (
        subprocess.run(
            [PIXIU_BIN, "ask", "--continue", "下一问"], env=online_env, capture_output=True, timeout=60
        ).returncode
        == 0
    )
    turns = rows(pixiu_home / "pixiu.db")
    assert [(t[1], t[2]) for t in turns] == [("第一问", "complete"), ("下一问", "complete")]
