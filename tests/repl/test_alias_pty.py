"""/alias through the real REPL: set an alias, ask with it, see why in /context, remove it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pexpect
import pytest

from tests.helpers import PIXIU_BIN, PROMPT, say, spawn

PORTFOLIO = Path(__file__).resolve().parents[2] / "data" / "selection" / "datasets" / "energy_consumer.json"


@pytest.mark.pty
@pytest.mark.slow
def test_alias_then_question_then_context_explains(offline_env):
    subprocess.run([PIXIU_BIN, "import", str(PORTFOLIO)], env=offline_env, check=True, capture_output=True, timeout=60)
    repl = spawn(offline_env)
    repl.expect(PROMPT)
    say(repl, "/alias 电池王 300750")
    repl.expect("已设置别名：电池王 → 300750 宁德时代")
    repl.expect(PROMPT)
    say(repl, "/alias 电池王 abc")
    repl.expect("找不到股票 'abc'")  # a word that is no code is looked up as a name
    repl.expect(PROMPT)
    say(repl, "电池王最近怎么样")
    repl.expect("离线模式")
    repl.expect(PROMPT)
    say(repl, "/context")
    repl.expect("single_stock")
    repl.expect("选择依据")
    repl.expect("300750：用户设置的别名")
    repl.expect(PROMPT)
    say(repl, "/alias --remove 电池王")
    repl.expect("已删除别名 电池王")
    repl.expect(PROMPT)
    say(repl, "/exit")
    repl.expect(pexpect.EOF)
