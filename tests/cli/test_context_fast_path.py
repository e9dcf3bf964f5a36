"""`pixiu context [TEXT]` takes the fast path (no typer coercion, so no pydantic) and a
composition without the agent loop, compaction or the SDK; what it prints is byte for byte
what typer's path prints for the same home and question. In process, on one demo home."""

from __future__ import annotations

import sys

import pytest

from pixiu_cli.cli import app as cli_app
from pixiu_cli.cli.fast import fast_call
from tests.helpers import NOT_IMPORTED_BY_CONTEXT, clean_env, pixiu_in_process

QUESTION = "宁德时代能买吗"
# Not imported by `pixiu context` (each is made unimportable while it runs).
NOT_NEEDED = (*NOT_IMPORTED_BY_CONTEXT, "rich.console")


@pytest.fixture(scope="module")
def demo_env(tmp_path_factory):
    # both paths see the same minute in the block's 当前时间 (and the demo is dated once)
    env = clean_env(tmp_path_factory.mktemp("context-fast") / "home", PIXIU_NOW="2026-06-16T16:00")
    first = pixiu_in_process(env, "context", "--demo", "--json", QUESTION)  # the demo's one refresh
    assert first.returncode == 0, first.stderr
    return env


def through_typer(monkeypatch, env, *args):
    with monkeypatch.context() as patched:
        patched.setattr(cli_app, "fast_call", lambda *a, **k: None)
        return pixiu_in_process(env, *args)


@pytest.mark.parametrize(
    "args",
    [
        ("context", "--demo", QUESTION),
        ("context", "--demo", "--json", QUESTION),
        ("context", QUESTION, "--demo", "--raw"),
        ("context", "--demo", "--pretty", QUESTION),
        ("context", "--demo", "--explain", QUESTION),
        ("context", "--demo"),  # no question: the latest call (none yet)
        ("context", "--demo", "--conversation", "99", QUESTION),  # an unknown conversation: one line
    ],
    ids=" ".join,
)
def test_the_fast_path_prints_what_typers_path_prints(demo_env, monkeypatch, args):
    assert fast_call(list(args), cli_app.FAST_COMMANDS, default="chat") is not None
    fast = pixiu_in_process(demo_env, *args)
    slow = through_typer(monkeypatch, demo_env, *args)
    assert (fast.returncode, fast.stdout, fast.stderr) == (slow.returncode, slow.stdout, slow.stderr)
    assert fast.stdout or fast.stderr


def test_context_needs_no_pydantic_agent_loop_or_rich(demo_env, monkeypatch):
    for name in NOT_NEEDED:
        monkeypatch.setitem(sys.modules, name, None)  # an import of it now fails
    done = pixiu_in_process(demo_env, "context", "--demo", QUESTION, text=True)
    assert done.returncode == 0, done.stderr
    assert "将要发送的请求（未调用模型）" in done.stdout and "宁德时代能买吗" in done.stdout
