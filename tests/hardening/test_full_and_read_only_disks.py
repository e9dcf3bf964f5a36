"""A full disk and a read-only home, on real file systems (tmpfs and a read-only bind mount in a
private mount namespace): no empty or cut-off file is left behind (unsent/, backups/, an
export), every command that meets a full disk says 磁盘已满 in one Chinese line, and a
read-only home is one Chinese line naming the folder, never the OS's or SQLite's English."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pixiu_cli.kernel.store.database import DISK_FULL
from tests.helpers import (
    HOLDING_600519,
    PIXIU_BIN,
    REPO,
    UNEXPECTED,
    clean_env,
    fill_until_full,
    in_process_clean,
    json_document,
)

UNSHARE = ["unshare", "--user", "--map-root-user", "--mount"]
FILL = f'"{sys.executable}" -c "from tests.helpers import fill_until_full; fill_until_full(\'$1\')"'


def _namespace(script: str, env, tmp_path) -> None:
    """`script` run by sh in a private user and mount namespace (the test's mounts are its own);
    skipped where such namespaces are not allowed."""
    if not shutil.which("unshare"):
        pytest.skip("no unshare here")
    fill = tmp_path / "fill.sh"
    fill.write_text(FILL + "\n", encoding="utf-8")
    script = f'fill() {{ sh "{fill}" "$1"; }}; P="{PIXIU_BIN}"; ' + script
    done = subprocess.run([*UNSHARE, "sh", "-c", script], env=env, cwd=REPO, capture_output=True, timeout=180)
    if done.returncode == 99:
        pytest.skip("no unprivileged mount namespaces here")
    assert done.returncode == 0, done.stderr


def _run(name: str, command: str, out) -> str:
    """`command` with its output, errors and status kept in `out/<name>.*`."""
    return f'{command} > "{out}/{name}.out" 2> "{out}/{name}.err"; echo $? > "{out}/{name}.rc"; '


def _said(out, name: str) -> tuple[int, str]:
    return int((out / f"{name}.rc").read_text()), (out / f"{name}.err").read_text(encoding="utf-8")


@pytest.mark.slow  # new processes in a mount namespace: whole suite only
def test_a_full_disk_leaves_no_empty_file_and_every_command_says_disk_full(offline_env, pixiu_home, tmp_path):
    out, spare = tmp_path / "out", tmp_path / "spare"
    out.mkdir()
    spare.mkdir()
    home = pixiu_home
    script = (
        f'mount -t tmpfs -o size=1m tmpfs "{home}" || exit 99; '
        f'mount -t tmpfs -o size=64k tmpfs "{spare}" || exit 99; '
        + _run("first", '"$P" ask 第一问', out)
        # room for SQLite's index (32 KiB) but not for a backup of the ~300 KB database
        + f'head -c 160000 /dev/zero > "{home}/room"; fill "{home}/filler"; rm "{home}/room"; '
        + _run("backup_room", '"$P" backup', out)
        + f'ls -A "{home}/backups" > "{out}/backups.txt" 2>/dev/null; '
        + f'fill "{spare}/filler"; '
        + _run("export_to_full", f'"$P" export -o "{spare}/x.json"', out)
        + f'ls -A "{spare}" > "{out}/spare.txt"; '
        + f'fill "{home}/filler2"; '  # now nothing at all is free
        + _run("ask_full", '"$P" ask 满了还问', out)
        + f'ls -A "{home}/unsent" > "{out}/unsent.txt" 2>/dev/null; '
        + _run("export_full", '"$P" export', out)
        + _run("backup_full", '"$P" backup', out)
        + f'rm "{home}/filler" "{home}/filler2"; '
        + _run("backup_after", '"$P" backup', out)
    )
    _namespace(script, offline_env, tmp_path)
    assert _said(out, "first")[0] == 0
    code, err = _said(out, "backup_room")
    assert code == 1 and err.count("\n") == 1 and "磁盘已满" in err and "无法写入备份到" in err, err
    assert (out / "backups.txt").read_text().split() == []  # no .partial copy left behind
    code, err = _said(out, "export_to_full")
    assert code == 1 and err == f"错误：无法写入 {spare}/x.json：磁盘已满\n", err
    assert (out / "spare.txt").read_text().split() == ["filler"]  # no x.json, no temporary file
    for name in ("ask_full", "export_full", "backup_full"):
        code, err = _said(out, name)
        assert code == 1 and err == f"错误：{DISK_FULL}\n", (name, err)  # not "disk I/O error"
    assert (out / "unsent.txt").read_text().split() == []  # the question did not fit: no 0-byte file
    assert _said(out, "backup_after")[0] == 0  # space again: all as before


def _english(line: str) -> list[str]:
    """Latin words in `line` other than paths, PIXIU_HOME and pixiu."""
    rest = re.sub(r"\S*/\S*", " ", line).replace("PIXIU_HOME", " ").replace("pixiu", " ")
    return re.findall(r"[A-Za-z]{3,}", rest)


@pytest.mark.slow
def test_a_read_only_home_is_one_chinese_line_naming_the_folder(offline_env, pixiu_home, tmp_path):
    import os

    if os.geteuid() != 0 and not os.access(pixiu_home, os.W_OK):
        pytest.skip("cannot arrange a read-only home")
    out = tmp_path / "out"
    out.mkdir()
    home = pixiu_home
    assert subprocess.run([PIXIU_BIN, "ask", "你好"], env=offline_env, capture_output=True, timeout=60).returncode == 0
    commands = {
        "ask": '"$P" ask 你好',
        "cash": '"$P" cash set 100',
        "watch": '"$P" watch add 600519',
        "config": '"$P" config set model deepseek-v4-pro',
        "backup": '"$P" backup',
        "export": f'"$P" export -o "{home}/x.json"',
    }
    script = f'mount --bind "{home}" "{home}" && mount -o remount,bind,ro "{home}" || exit 99; '
    script += "".join(_run(name, command, out) for name, command in commands.items())
    _namespace(script, offline_env, tmp_path)
    for name in commands:
        code, err = _said(out, name)
        lines = err.splitlines()
        assert code == 1 and len(lines) == 1 and lines[0].startswith("错误："), (name, err)
        assert str(home) in lines[0] and _english(lines[0]) == [], (name, lines[0])
    assert "只读" in _said(out, "ask")[1] and "文件系统是只读的" in _said(out, "backup")[1]


@pytest.fixture
def env(tmp_path):
    return clean_env(tmp_path / "home")


@pytest.mark.pty
@pytest.mark.slow
def test_a_question_the_full_disk_cannot_store_is_kept_not_discarded(env, tmp_path):
    import shutil
    import subprocess

    import pexpect

    from tests.helpers import PIXIU_BIN, PROMPT, PROMPT_READING, say

    unshare = ["--user", "--map-root-user", "--mount"]
    probe = tmp_path / "probe"
    probe.mkdir()
    if (
        not shutil.which("unshare")
        or subprocess.run(
            ["unshare", *unshare, "sh", "-c", f"mount -t tmpfs -o size=64k tmpfs {probe}"], capture_output=True
        ).returncode
    ):
        pytest.skip("no unprivileged mount namespaces here")
    home = Path(env["PIXIU_HOME"])
    home.mkdir(parents=True)
    mount = f'mount -t tmpfs -o size=2m tmpfs "{home}" || exit 99; '
    child = pexpect.spawn(
        "unshare",
        [*unshare, "sh", "-c", mount + f"exec {PIXIU_BIN} chat"],
        env=dict(env, PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm-256color"),
        encoding="utf-8",
        timeout=40,
        dimensions=(40, 110),
    )
    inside = f"/proc/{child.pid}/root{home}"
    question = "磁盘满了还问" + "长" * 3000
    try:
        child.expect(PROMPT)
        fill_until_full(f"{inside}/filler")
        say(child, question)  # neither its input history line nor the turn fits
        child.expect("输入历史无法写入")
        child.expect("磁盘已满")
        child.expect("已放回输入框|已保存在")
        put_back = "已放回输入框" in child.after
        child.expect_exact(PROMPT_READING)  # the next prompt reads keys (drawn with the question)
        seen = child.before
        Path(f"{inside}/filler").unlink()
        if put_back:  # the next prompt holds the question: Enter asks it again
            child.send("\r")
        else:
            say(child, "再问")
        child.expect("你的问题是")
        child.expect(PROMPT)
        say(child, "/exit")
        child.expect(pexpect.EOF)
    finally:
        if child.isalive():
            child.terminate(force=True)
    assert "Unhandled exception" not in seen and UNEXPECTED not in seen


@pytest.mark.slow
def test_a_read_only_home_still_asks_and_exports(env, tmp_path):
    import os
    import stat
    import subprocess

    in_process_clean(env, "import", str(json_document(tmp_path, holdings=[HOLDING_600519])))
    in_process_clean(env, "ask", "你好")
    home = Path(env["PIXIU_HOME"])
    # root ignores permissions: a read-only bind mount in a private namespace makes it real
    script = f'mount --bind "{home}" "{home}" && mount -o remount,bind,ro "{home}" && '
    script += f'"$0" export > "{tmp_path}/out.json" 2> "{tmp_path}/export.err"; echo $? > "{tmp_path}/export.rc"; '
    script += f'"$0" data status > /dev/null 2> "{tmp_path}/status.err"; echo $? > "{tmp_path}/status.rc"; '
    script += f'"$0" ask 你好 > /dev/null 2> "{tmp_path}/ask.err"; echo $? > "{tmp_path}/ask.rc"'
    from tests.helpers import PIXIU_BIN

    if os.geteuid() != 0 and not os.access(home, os.W_OK):
        pytest.skip("cannot arrange a read-only home")
    done = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script, PIXIU_BIN],
        env=env,
        capture_output=True,
        timeout=120,
    )
    if done.returncode and b"mount" in done.stderr:
        pytest.skip("no unprivileged mount namespaces here")
    read = lambda name: (tmp_path / name).read_text(encoding="utf-8")  # noqa: E731
    assert read("export.rc").strip() == "0", read("export.err")
    assert json.loads(read("out.json"))["holdings"][0]["symbol"] == "600519"
    assert read("status.rc").strip() == "0", read("status.err")
    for name in ("export.err", "status.err", "ask.err"):
        assert UNEXPECTED not in read(name) and "Traceback" not in read(name), read(name)
    assert read("ask.rc").strip() == "1" and "只读" in read("ask.err")
    assert stat.S_IMODE(home.stat().st_mode)  # the home itself is untouched
