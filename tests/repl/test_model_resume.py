"""/model is the conversation's: /resume of a conversation that was switched continues with
its model, /resume of one never switched goes back to the configured default, and the recap
names the model. A real app (offline, its own database), commands through run_command."""

from __future__ import annotations

import io
import re

import pytest

from pixiu_cli.repl.loop import run_command
from pixiu_cli.repl.state import ReplState
from pixiu_cli.repl.turn import run_chat_turn
from tests.helpers import offline_repl

DEFAULT = "deepseek-flash"
SWITCHED = "deepseek-v4-pro"


@pytest.fixture
def repl(tmp_path):
    with offline_repl(tmp_path, PIXIU_MODEL=DEFAULT) as opened:
        yield opened


def _said(out: io.StringIO, line_count_before: int) -> str:
    return "".join(out.getvalue().splitlines(keepends=True)[line_count_before:])


def _run(state: ReplState, out: io.StringIO, line: str) -> str:
    before = len(out.getvalue().splitlines())
    run_command(state, line)
    return _said(out, before)


def _models(state: ReplState) -> tuple[str, str]:
    return state.app.settings.model, state.app.agent.client.model


def test_resume_continues_with_the_model_the_conversation_was_switched_to(repl):
    state, out = repl
    plain = state.ensure_conversation()  # never switched
    run_command(state, "/new")
    switched = state.ensure_conversation()
    assert "已切换到模型 " + SWITCHED in _run(state, out, f"/model {SWITCHED}")
    run_command(state, "/new")
    shown = _run(state, out, f"/resume {plain}")
    assert _models(state) == (DEFAULT, DEFAULT)  # back to the configured default
    assert f"已切换到对话 {plain}：" in shown and f"模型 {DEFAULT}" in shown
    shown = _run(state, out, f"/resume {switched}")
    assert _models(state) == (SWITCHED, SWITCHED)
    assert f"模型 {SWITCHED}" in shown
    assert f"当前模型：{SWITCHED}" in _run(state, out, "/model")


def test_a_switch_before_the_first_question_is_kept_with_the_conversation(repl):
    state, out = repl
    run_command(state, f"/model {SWITCHED}")  # no conversation yet: the next one is started with it
    started = state.ensure_conversation()
    run_command(state, "/new")
    run_command(state, f"/model {DEFAULT}")
    assert _models(state) == (DEFAULT, DEFAULT)
    shown = _run(state, out, f"/resume {started}")
    assert _models(state) == (SWITCHED, SWITCHED) and f"模型 {SWITCHED}" in shown


def test_a_switch_says_the_provider_may_still_reuse_the_prefix(repl):
    """The cache is the provider's: pixiu cannot know it starts from zero, and the offline
    provider (like DeepSeek) goes on reusing the unchanged prefix after a switch."""
    state, out = repl
    run_chat_turn(state, "茅台最近怎么样")
    said = _run(state, out, f"/model {SWITCHED}")
    assert "从头" not in said and "从零" not in said
    assert "可能仍复用" in said and "pixiu 无法预知" in said and "以下一次的状态行为准" in said
    before = len(out.getvalue().splitlines())
    run_chat_turn(state, "茅台最近怎么样")
    status = _said(out, before)
    hit = re.search(r"缓存命中 (\d+)%", status)
    assert hit and int(hit.group(1)) > 0, status  # what the line said would not happen
