"""In the real REPL (a pseudo-terminal, the loopback model over real HTTP returning the
trade of the test's choosing): a trade the user's words do not report as their own fill is
asked about after the turn, its arguments shown — `y` records it once, anything else leaves
the account as it was — while a plain report of a fill is recorded without a question."""

from __future__ import annotations

import json
import subprocess

import pexpect
import pytest

from pixiu_cli.conversation.offline.script import ScriptedReply, ToolCallSpec
from tests.helpers import FIXTURE, NOW, PIXIU_BIN, PROMPT, say, spawn

SELL_ALL = {"symbol": "600519", "side": "sell", "price": 1500, "quantity": 100}  # 600519: 100 shares held


def shares(env) -> dict[str, float]:
    done = subprocess.run([PIXIU_BIN, "holdings", "--json"], env=env, capture_output=True, text=True, timeout=60)
    return {h["symbol"]: h["shares"] for h in json.loads(done.stdout)["holdings"]}


@pytest.fixture
def online_env(online_env):
    return {**online_env, "PIXIU_NOW": NOW.isoformat()}  # a trading day: a fill is told on one


@pytest.fixture
def repl(server, online_env):
    subprocess.run([PIXIU_BIN, "import", str(FIXTURE)], env=online_env, check=True, capture_output=True, timeout=60)
    server.enqueue(
        ScriptedReply(tool_calls=[ToolCallSpec("record_decision", json.dumps(SELL_ALL))]), ScriptedReply(text="好")
    )
    child = spawn(online_env)
    child.expect(PROMPT)
    yield child
    say(child, "/exit")
    child.expect(pexpect.EOF)


@pytest.mark.pty
@pytest.mark.slow
def test_a_proposed_trade_is_recorded_when_the_user_says_yes(repl, online_env):
    say(repl, "我朋友以 1500 元卖了 100 股茅台")
    repl.expect(r"模型提议 #n(\d+)：卖出 600519 100 股 @ 1500，\d{4}-\d\d-\d\d。记录这笔交易？ \[y/N\]")
    assert shares(online_env)["600519"] == 100  # nothing yet
    repl.send("y")  # one key
    repl.expect(r"已记录 #d\d+：卖出 600519 100 股 @ 1500")
    repl.expect(PROMPT)
    assert "600519" not in shares(online_env)


@pytest.mark.pty
@pytest.mark.slow
def test_a_proposed_trade_is_left_when_the_user_says_no(repl, online_env):
    say(repl, "我不想以 1500 元卖 100 股茅台")
    repl.expect(r"记录这笔交易？ \[y/N\]")
    repl.send("n")  # one key: anything but y
    repl.expect(r"没有记录。提议 #n\d+ 留在 /memory 里")
    repl.expect(PROMPT)
    assert shares(online_env)["600519"] == 100


@pytest.mark.pty
@pytest.mark.slow
def test_a_plain_report_is_recorded_without_a_question(repl, online_env):
    say(repl, "我今天以 1500 元卖了 100 股茅台")
    repl.expect(r"已记录 #d\d+：卖出 600519 100 股 @ 1500")
    repl.expect(PROMPT)
    assert "记录这笔交易" not in repl.before
    assert "600519" not in shares(online_env)
