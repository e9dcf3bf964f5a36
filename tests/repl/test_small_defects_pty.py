"""Smaller defects: /sessions speaks Beijing time like the rest of pixiu; an offline server
on a taken port is one clear line."""

from __future__ import annotations

import socket
import sqlite3
import subprocess
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from pixiu_cli.offline.script import ScriptedReply
from tests.helpers import PIXIU_BIN, PROMPT, leave, repl_session, say


@pytest.mark.pty
@pytest.mark.slow
def test_sessions_shows_beijing_time(server, online_env, pixiu_home):
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


@pytest.mark.slow
def test_offline_server_on_a_taken_port_is_one_line(offline_env):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [PIXIU_BIN, "offline-server", "--port", str(port)],
            env=offline_env,
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert done.returncode == 1
    assert done.stderr == f"错误：端口 {port} 已被占用：请用 --port 换一个端口（--port 0 表示随机）\n"
