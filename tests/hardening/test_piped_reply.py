"""A reply read by a script (`pixiu ask … | …`): standard output holds the answer and the
notices, each notice on a line of its own; a thinking model's reasoning is not mixed in (it
goes to standard error when that is a terminal, else only to the record)."""

from __future__ import annotations

import io
import sqlite3

from pixiu_cli.conversation.offline.script import ScriptedReply
from pixiu_cli.kernel.render import Renderer
from tests.helpers import call, pixiu_in_process

RULE = "单只个股仓位不超过三成"
REASONING = "用户要我记下一条纪律，先调用 remember。"


def test_piped_ask_keeps_reasoning_out_of_stdout_and_notices_on_their_own_lines(server, online_env, pixiu_home):
    server.enqueue(
        ScriptedReply(
            reasoning=REASONING,
            text="好的，我会记住这条纪律",  # no line break before the tool call
            tool_calls=[call("remember", {"kind": "rule", "text": RULE})],
        ),
        ScriptedReply(reasoning="已记下，简短确认。", text="已记下。"),
    )
    # in process: its standard output and error are no terminal, as in `pixiu ask … | cat`
    done = pixiu_in_process(online_env, "ask", f"记住：{RULE}", text=True)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "思考中" not in out and "remember" not in out and "简短确认" not in out, out
    assert "思考中" not in done.stderr and REASONING not in done.stderr  # stderr is no terminal either
    lines = out.splitlines()
    notice = next(line for line in lines if "已记住" in line)
    assert notice.startswith("已记住 #n"), lines  # not glued to the answer's last words
    assert "好的，我会记住这条纪律" in lines and lines[-1] == "已记下。", lines
    db = sqlite3.connect(pixiu_home / "pixiu.db")
    stored = [r[0] for r in db.execute("select reasoning_text from calls order by id")]
    assert stored == [REASONING, "已记下，简短确认。"]  # kept in the record all the same


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_reasoning_goes_to_stderr_when_only_stderr_is_a_terminal():
    out, err = io.StringIO(), _Terminal()
    renderer = Renderer(file=out, rich_output=False, stderr=err)
    with renderer.reply() as stream:
        stream.reasoning("先看持仓")
        stream.text("结论：控制仓位。")
    assert out.getvalue() == "结论：控制仓位。\n"
    assert "思考中…" in err.getvalue() and "先看持仓" in err.getvalue()
