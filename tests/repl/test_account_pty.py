"""/holdings and /trades through the real REPL after `pixiu trades import`, and a trade told
in conversation with its day ("昨天") landing in the account and leaving it on /forget."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pexpect
import pytest

from tests.helpers import NOW, PIXIU_BIN, PROMPT, say, spawn

STATEMENT = Path(__file__).resolve().parents[1] / "fixtures" / "statements" / "ths_jiaogedan.csv"


@pytest.mark.pty
@pytest.mark.slow
def test_holdings_and_trades_in_the_repl(offline_env):
    offline_env = {**offline_env, "PIXIU_NOW": NOW.isoformat()}  # 昨天 is a trading day
    subprocess.run(
        [PIXIU_BIN, "trades", "import", str(STATEMENT)], env=offline_env, check=True, capture_output=True, timeout=60
    )
    repl = spawn(offline_env)
    repl.expect(PROMPT)
    say(repl, "/holdings")
    repl.expect("000333")  # a table cell: the name may wrap onto its own line
    repl.expect(r"现金 27,094\.95")
    repl.expect(PROMPT)
    say(repl, "昨天以80元卖出100股美的集团")
    repl.expect(r"已记录 #d(\d+)：\d{4}-\d{2}-\d{2} 卖出 000333 100 股 @ 80，持仓 190 股")
    ref = f"d{repl.match.group(1)}"
    repl.expect(PROMPT)
    say(repl, "/trades 000333")
    repl.expect("手工")
    repl.expect(ref)
    repl.expect(PROMPT)
    say(repl, f"/forget {ref}")
    repl.expect(f"已撤销 #{ref}")
    repl.expect(PROMPT)
    say(repl, "/trades 12345")
    repl.expect("股票代码应为 6 位数字")
    repl.expect(PROMPT)
    say(repl, "/exit")
    repl.expect(pexpect.EOF)
