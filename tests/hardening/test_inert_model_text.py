"""The model's reply carrying terminal escapes — OSC 52 (write the clipboard), ESC[2J (clear
the screen), an OSC 8 link, a C1 CSI — leaves pixiu inert wherever it goes: a pipe
(`pixiu ask … | cat`, `pixiu brief --yes | …`), a file (/save) and every push payload. Each is
shown as the terminal shows it (␛ …), by the one sanitiser (pixiu_cli/kernel/safe_text.py)."""

from __future__ import annotations

import pytest

from pixiu_cli.conversation.offline.script import ScriptedReply
from pixiu_cli.kernel.safe_text import visible
from tests.helpers import FIXTURE, PROMPT, leave, pixiu_in_process, repl_session, say, wait_for_new_prompt
from tests.push_receivers import Receiver

CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4K\x07"
CLEAR = "\x1b[2J\x1b[H"
LINK = "\x1b]8;;https://evil.example/\x1b\\点此查看\x1b]8;;\x1b\\"
C1_CSI = "\x9b31m"
HOSTILE = f"茅台估值合理。{CLIPBOARD}{CLEAR}{LINK}{C1_CSI}\n结论：继续持有。"
ACTIVE = ("\x1b", "\x07", "\x9b", "\x9d")


def inert(text: str) -> bool:
    return not any(c in text for c in ACTIVE) and "␛]52;c;cm0gLXJmIH4K␇" in text


@pytest.fixture
def env(online_env):
    done = pixiu_in_process(online_env, "import", str(FIXTURE), text=True)
    assert done.returncode == 0, done.stderr
    return online_env


def test_a_piped_reply_carries_no_escape(server, env):
    server.enqueue(ScriptedReply(text=HOSTILE))
    done = pixiu_in_process(env, "ask", "茅台怎么样", text=True)  # stdout no terminal: `| cat`
    assert done.returncode == 0, done.stderr
    assert inert(done.stdout) and "点此查看" in done.stdout and "结论：继续持有。" in done.stdout
    assert visible(HOSTILE) in done.stdout  # exactly what the terminal shows


def test_a_piped_brief_and_its_push_payloads_carry_no_escape(server, env, pixiu_home):
    receiver = Receiver()
    try:
        (pixiu_home / "config.toml").write_text(receiver.config("wecom", "telegram", "webhook"), encoding="utf-8")
        (pixiu_home / "config.toml").chmod(0o600)
        server.enqueue(ScriptedReply(text=HOSTILE))
        done = pixiu_in_process(env, "brief", "--yes", "--push", text=True)
    finally:
        receiver.close()
    assert done.returncode == 0, done.stderr
    assert inert(done.stdout)
    wecom, telegram, webhook = (receiver.received[k][0] for k in ("wecom", "telegram", "webhook"))
    payloads = [wecom["markdown"]["content"], telegram["text"], webhook["title"], webhook["text"], webhook["markdown"]]
    assert all(not any(c in p for c in ACTIVE) for p in payloads)
    assert all(inert(p) for p in (wecom["markdown"]["content"], telegram["text"], webhook["markdown"]))


@pytest.mark.pty
def test_a_saved_conversation_carries_no_escape(server, env, tmp_path):
    server.enqueue(ScriptedReply(text=HOSTILE))
    target = tmp_path / "对话.md"
    with repl_session(env) as child:
        child.expect(PROMPT)
        say(child, "茅台怎么样")
        wait_for_new_prompt(child)
        say(child, f"/save {target}")
        wait_for_new_prompt(child)
        leave(child)
    saved = target.read_text(encoding="utf-8")
    assert inert(saved) and "结论：继续持有。" in saved
