"""`pixiu context [TEXT]` is a plain click command of the root group (no typer, so no
pydantic; it no longer needs a fast path of its own) over a composition without the agent
loop, compaction or the SDK. What it printed through typer's path and the fast path (byte
for byte the same, checked when it moved) is what each mode prints here. In process, on one
demo home."""

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


def _json(text: str):
    import json

    return json.loads(text)


@pytest.mark.parametrize(
    "args, shows",
    [
        (
            ("context", "--demo", QUESTION),
            lambda out: out.startswith("将要发送的请求（未调用模型） · 模型 pixiu-offline"),
        ),
        (
            ("context", "--demo", "--json", QUESTION),
            lambda out: _json(out)[-1] == {"role": "user", "content": QUESTION},
        ),
        (
            ("context", QUESTION, "--demo", "--raw"),
            lambda out: _json(out)["model"] == "pixiu-offline" and out.count("\n") == 1,
        ),
        (("context", "--demo", "--pretty", QUESTION), lambda out: out.startswith('{\n  "model": "pixiu-offline",')),
        (("context", "--demo", "--explain", QUESTION), lambda out: _json(out)["symbols"] == ["300750"]),
    ],
    ids=lambda a: " ".join(a) if isinstance(a, tuple) else "",
)
def test_the_root_group_prints_each_mode(demo_env, args, shows):
    assert fast_call(list(args), cli_app.FAST_COMMANDS, default="chat") is None  # the root group's
    done = pixiu_in_process(demo_env, *args, text=True)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert shows(done.stdout), done.stdout[:300]


@pytest.mark.parametrize(
    "args, said",
    [
        (
            ("context", "--demo"),
            "错误：当前对话还没有调用过模型；可先提问，或用 pixiu context TEXT 预览将要发送的内容\n",
        ),
        (("context", "--demo", "--conversation", "99", QUESTION), "错误：没有 ID 为 99 的对话\n"),  # one line
    ],
    ids=lambda a: " ".join(a) if isinstance(a, tuple) else "",
)
def test_what_there_is_not_is_one_line(demo_env, args, said):
    done = pixiu_in_process(demo_env, *args, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", said)


def test_context_needs_no_pydantic_agent_loop_or_rich(demo_env, monkeypatch):
    for name in NOT_NEEDED:
        monkeypatch.setitem(sys.modules, name, None)  # an import of it now fails
    done = pixiu_in_process(demo_env, "context", "--demo", QUESTION, text=True)
    assert done.returncode == 0, done.stderr
    assert "将要发送的请求（未调用模型）" in done.stdout and "宁德时代能买吗" in done.stdout
