"""ONE table per listing: `pixiu alert list` and `/alert` (the REPL's lacked the cooldown),
`pixiu memory list` and `/memory` (the command line's lacked the injections and the pin)
draw the same columns and rows, each surface driven for real on one database."""

from __future__ import annotations

from pixiu_cli.repl.loop import run_command
from tests.helpers import offline_repl, pixiu_in_process

HEADER = "编号\t条件\t冷却\t来源\t已检查到\t上次触发"


def _rule_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line == HEADER or line.startswith("a1\t")]


def test_the_cli_and_the_repl_show_one_alert_table(offline_env, pixiu_home):
    added = pixiu_in_process(offline_env, "alert", "add", "000333", "--above", "76", "--cooldown", "3", text=True)
    assert added.returncode == 0, added.stderr
    cli = _rule_lines(pixiu_in_process(offline_env, "alert", "list", text=True).stdout)
    with offline_repl(pixiu_home) as (state, out):
        run_command(state, "/alert")
        repl = _rule_lines(out.getvalue())
    assert cli == repl and cli[0] == HEADER, (cli, repl)
    cells = cli[1].split("\t")
    # a rule set by hand, silent 3 trading days after it fires, never checked nor fired yet
    assert cells[0] == "a1" and cells[1].endswith("收盘突破 76 元") and cells[2:] == ["3 日", "手动", "—", "—"]


MEMORY_HEADER = "ID\t类型\t标的\t日期\t作者\t注入次数\t内容"


def test_the_cli_and_the_repl_show_one_memory_table(offline_env, pixiu_home):
    told = pixiu_in_process(
        offline_env, "remember", "宁德跌破", "150", "元就减半", "--kind", "plan", "--symbol", "300750"
    )
    assert told.returncode == 0, told.stderr
    assert pixiu_in_process(offline_env, "memory", "pin", "n1").returncode == 0
    cli = pixiu_in_process(offline_env, "memory", "list", text=True).stdout.splitlines()
    with offline_repl(pixiu_home) as (state, out):
        run_command(state, "/memory")
        repl = out.getvalue().splitlines()
    rows = [line for line in cli if line.startswith("n1\t")]
    assert MEMORY_HEADER in cli and MEMORY_HEADER in repl and rows and rows[0] in repl, (cli, repl)
    cells = rows[0].split("\t")
    # a pinned plan about 300750, the user's own, never injected yet; the words as one text
    assert cells[1:3] == ["计划·置顶", "300750"] and cells[4:] == ["用户", "0", "宁德跌破 150 元就减半"]
