"""The notebook in the REPL: a plan offering to replace an older one, the offer accepted,
/forget putting the old one back,
/memory finding a note by code in any spelling, by name and by kind, pins."""

from __future__ import annotations

import re

import pytest

from tests.helpers import PROMPT_DONE, PROMPT_READING, leave, repl_session, say


def _ask(child, text):
    say(child, text)
    child.expect_exact(PROMPT_DONE)
    child.expect_exact(PROMPT_READING)
    return child.before.replace("\r\n", "")  # a long line wraps at the terminal's width


@pytest.mark.pty
@pytest.mark.slow
def test_plans_search_and_pins_in_the_repl(offline_env):
    with repl_session(offline_env) as child:
        child.expect_exact(PROMPT_READING)
        shown = _ask(child, "/remember 回踩30加仓 --kind plan --symbol 300750")
        assert "已记住 #n1：计划（300750）" in shown
        shown = _ask(child, "/remember 回踩28加仓 --kind plan --symbol 300750")
        assert "已记住 #n2" in shown and "与 #n1「回踩30加仓」同一只股票同一方向，替换旧计划吗？" in shown
        assert "/memory replace n2" in shown
        _ask(child, "宁德时代怎么样")
        shown = _ask(child, "/context --json")  # not accepted yet: the model sees both, the older one marked
        assert "回踩28加仓" in shown and "回踩30加仓" in shown and "待用户确认是否替换它" in shown
        shown = _ask(child, "/memory replace n2")
        assert "已用 #n2「回踩28加仓」替换旧计划 #n1「回踩30加仓」" in shown
        _ask(child, "/new")  # a fresh conversation: its one block is the one in force now
        _ask(child, "宁德时代怎么样")
        shown = _ask(child, "/context --json")
        assert "回踩28加仓" in shown and "回踩30加仓" not in shown  # only the plan in force
        shown = _ask(child, "/memory 300750")
        assert "n2" in shown and "已被 n2 替换" in shown
        for query in ("sz300750", "宁德时代"):
            shown = _ask(child, f"/memory {query}")
            assert "回踩28加仓" in shown, query
        shown = _ask(child, "/forget n2")
        assert "已删除 #n2" in shown and "旧计划 #n1 恢复有效" in shown
        _ask(child, "/remember 永远不满仓 --kind rule")
        shown = _ask(child, "/memory 纪律")
        assert "永远不满仓" in shown and "回踩30加仓" not in shown
        shown = _ask(child, "/memory pin n1")
        assert "已置顶 #n1" in shown
        shown = _ask(child, "/memory pin d9")
        assert "没有 ID 为 d9" in shown or "只有笔记可以置顶" in shown
        leave(child)


# prompt_toolkit draws the completion under the cursor in reverse video ("\x1b[0;7m"): the
# row of a value selected by Tab, which no earlier output contains
_SELECTED = r"\x1b\[(?:[0-9]+;)*7m {value} "


def _tab(child, typed: str, value: str, meta: str) -> None:
    """Type, wait for the completion menu to list `value` with `meta` beside it (the
    completions are ready, so Tab is handled at once), Tab, wait until the menu shows `value`
    selected (it is in the line now), then Enter."""
    child.send(typed)
    child.expect_exact(meta)
    child.send("\t")
    child.expect(_SELECTED.format(value=re.escape(value)))
    say(child, "")


@pytest.mark.pty
@pytest.mark.slow
def test_tab_completes_a_conversation_id_and_a_memory_id(offline_env):
    from tests.helpers import pixiu_in_process

    assert pixiu_in_process(offline_env, "ask", "茅台怎么样").returncode == 0
    with repl_session(offline_env) as child:
        child.expect_exact(PROMPT_READING)
        _tab(child, "/resume ", "1", "茅台怎么样")
        child.expect_exact("已切换到对话 1：茅台怎么样")
        child.expect_exact(PROMPT_READING)
        _ask(child, "/remember 永远不融资 --kind rule")
        _tab(child, "/forget ", "n1", "永远不融资")
        child.expect_exact("已删除 #n1：永远不融资")
        child.expect_exact(PROMPT_READING)  # Ctrl-D goes to a prompt that reads keys, not between two
        leave(child)
