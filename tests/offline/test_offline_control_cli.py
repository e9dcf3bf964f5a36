"""`pixiu offline-server`: its control routes exist only with --control, behind the token it prints;
a taken port is one clear line."""

from __future__ import annotations

import re
import subprocess
import urllib.error
import urllib.request

import pytest

from tests.helpers import PIXIU_BIN, OfflineControl, clean_env


def start(tmp_path, *args):
    process = subprocess.Popen(
        [PIXIU_BIN, "offline-server", "--port", "0", *args],
        env=clean_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        encoding="utf-8",
    )
    lines = [process.stdout.readline()]
    if "--control" in args:
        lines.append(process.stdout.readline())
    base_url = re.search(r"(http://127\.0\.0\.1:\d+/v1)", lines[0]).group(1)
    token = re.search(r"X-Pixiu-Control-Token）：(\S+)", lines[-1]).group(1) if "--control" in args else None
    return process, base_url, token


@pytest.mark.timeout(60)
def test_offline_server_command_opens_control_only_when_asked(tmp_path):
    process, base_url, token = start(tmp_path)
    try:
        with pytest.raises(urllib.error.HTTPError) as info:
            OfflineControl(base_url, "anything").enqueue("planted")
        assert info.value.code == 404
    finally:
        process.terminate()
        process.wait(10)

    process, base_url, token = start(tmp_path, "--control")
    try:
        control = OfflineControl(base_url, token)
        assert control.enqueue("脚本回复") == 1
        with pytest.raises(urllib.error.HTTPError) as info:
            OfflineControl(base_url, token + "x").reset()
        assert info.value.code == 403
        assert control.requests() == []
    finally:
        process.terminate()
        process.wait(10)


@pytest.mark.timeout(60)
@pytest.mark.slow  # a second server process; the fast subset keeps the one above
def test_offline_server_command_stops_cleanly_on_ctrl_c(tmp_path):
    """It serves in the foreground (OfflineServer.serve_in_foreground): Ctrl-C ends it with
    status 0 and the port is free again."""
    import signal
    import socket

    process, base_url, _ = start(tmp_path)
    port = int(base_url.rsplit(":", 1)[1].split("/", 1)[0])
    with pytest.raises(urllib.error.HTTPError) as info:  # it answers (without a key: 401)
        urllib.request.urlopen(f"{base_url}/models", timeout=10)
    assert info.value.code == 401
    process.send_signal(signal.SIGINT)
    assert process.wait(10) == 0
    assert process.stdout.read() == ""
    with socket.socket() as probe:  # nothing listens there any more (TIME_WAIT aside)
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(("127.0.0.1", port))
        probe.listen()


@pytest.mark.slow
def test_offline_server_on_a_taken_port_is_one_line(offline_env):
    import socket

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
