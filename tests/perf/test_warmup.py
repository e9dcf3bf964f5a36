"""The REPL loads the openai SDK and the tokenizer in the background once the prompt is
drawn, not at start-up and not in the first turn; one-shot commands load openai only when
they call the model."""

from __future__ import annotations

import io
import subprocess
import sys
import threading

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from pixiu_cli.app import open_app
from pixiu_cli.conversation.selection import intent
from pixiu_cli.conversation.tokenizer import counts as tokens
from pixiu_cli.kernel.render import Renderer
from pixiu_cli.kernel.settings import load_settings
from pixiu_cli.repl.loop import run_repl
from pixiu_cli.repl.state import ReplState
from tests.helpers import clean_env, fresh_python

PROMPT_MARK = "你"  # the prompt "你 ›", drawn one wide character at a time


def _join_warmups() -> None:
    for thread in threading.enumerate():
        if thread.name == "pixiu-warmup":
            thread.join(timeout=60)


def test_the_prompt_starts_the_warmup_without_any_turn(tmp_path, monkeypatch):
    monkeypatch.setenv("PIXIU_HOME", str(tmp_path))
    for name in ("DEEPSEEK_API_KEY", "OPENAI_API_KEY", "PIXIU_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    app = open_app(load_settings(force_offline=True))
    try:
        client = app.agent.client
        assert client._sdk is None  # opening the app does not build the SDK client
        state = ReplState(app=app, renderer=Renderer(file=io.StringIO(), rich_output=False))
        intent.cues.cache_clear()
        with create_pipe_input() as pipe:
            pipe.send_bytes(b"\x04")  # Ctrl-D at the first prompt: no turn at all
            run_repl(state, input=pipe, output=DummyOutput())
        _join_warmups()
        assert client._sdk is not None
        assert tokens._loaded is not None
        assert tokens.count_tokens("贵州茅台 600519") > 0
        assert intent.cues.cache_info().currsize == 1  # the selection's rules are compiled
    finally:
        app.close()


def _modules_after(argv: list[str], env_extra: dict[str, str], tmp_path) -> str:
    script = (
        "import sys\n"
        f"sys.argv = {['pixiu', *argv]!r}\n"
        "from pixiu_cli.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('MODULES', 'openai' in sys.modules, 'pixiu_cli.conversation.tokenizer.bpe' in sys.modules, file=sys.stderr)\n"
    )
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("PIXIU_") and "API_KEY" not in k}
    env.update(PIXIU_HOME=str(tmp_path), **env_extra)
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    line = [ln for ln in done.stderr.splitlines() if ln.startswith("MODULES")]
    assert line, done.stderr
    return line[-1]


def test_help_imports_neither_openai_nor_the_tokenizer(tmp_path):
    assert _modules_after(["--help"], {}, tmp_path) == "MODULES False False"


@pytest.mark.slow  # a new process is what is measured: whole suite only
def test_context_without_a_call_imports_no_openai(tmp_path):
    # `pixiu context TEXT` assembles a request but sends nothing
    assert _modules_after(["context", "茅台怎么看"], {}, tmp_path).startswith("MODULES False")


class _RecordingOutput(DummyOutput):
    """Keeps what was flushed to the screen."""

    def __init__(self):
        super().__init__()
        self.pending, self.screen = "", ""

    def write(self, data: str) -> None:
        self.pending += data

    def write_raw(self, data: str) -> None:
        self.pending += data

    def flush(self) -> None:
        self.screen, self.pending = self.screen + self.pending, ""


def test_the_warmup_starts_after_the_prompt_is_drawn(tmp_path, monkeypatch):
    from pixiu_cli.repl import warmup

    monkeypatch.setenv("PIXIU_HOME", str(tmp_path))
    for name in ("DEEPSEEK_API_KEY", "OPENAI_API_KEY", "PIXIU_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    output, seen = _RecordingOutput(), []
    original = warmup.Warmup.start

    def start(self):
        seen.append(output.screen)
        original(self)

    monkeypatch.setattr(warmup.Warmup, "start", start)
    app = open_app(load_settings(force_offline=True))
    try:
        state = ReplState(app=app, renderer=Renderer(file=io.StringIO(), rich_output=False))
        with create_pipe_input() as pipe:
            pipe.send_bytes(b"\x04")
            run_repl(state, input=pipe, output=output)
        _join_warmups()
    finally:
        app.close()
    assert len(seen) == 1 and PROMPT_MARK in seen[0], seen  # the prompt was on the screen when the thread started


def test_only_what_every_turn_needs_is_loaded_while_a_turn_runs():
    """A turn needs every step but the idle ones (the homophone table): the thread goes on
    with those while a turn runs, and leaves the idle ones for the next prompt."""
    from pixiu_cli.repl.warmup import Warmup

    done: list[str] = []
    in_step, release = threading.Event(), threading.Event()

    def blocking():
        in_step.set()
        release.wait(timeout=30)
        done.append("sdk")

    class Steps(Warmup):
        def steps(self):
            return (lambda: done.append("selection"), blocking, lambda: done.append("render"))

        def idle_steps(self):
            return (lambda: done.append("pinyin"),)

    warmup = Steps(client=None)
    warmup.start()
    assert in_step.wait(timeout=30)
    warmup.turn_started()  # Enter while the thread is in a step: the turn's steps go on
    release.set()
    warmup.thread.join(timeout=0.5)
    assert warmup.thread.is_alive()
    assert done == ["selection", "sdk", "render"]
    warmup.prompt_shown()
    warmup.thread.join(timeout=30)
    assert done[-1] == "pinyin"


def test_the_steps_come_in_the_order_a_turn_needs_them():
    from pixiu_cli.kernel import render
    from pixiu_cli.market.names import homophones, words
    from pixiu_cli.repl.registry import registry
    from pixiu_cli.repl.warmup import Warmup

    class Client:
        provider = "deepseek"

        def warm(self):
            pass

    client = Client()
    warmup = Warmup(client)
    steps = warmup.steps()
    assert steps.index(words.warm) < steps.index(tokens.warm) < steps.index(client.warm)
    assert steps.index(client.warm) < len(steps) - 1 and render.warm not in steps  # rendering: in the last step
    # only some inputs need them: the slash commands, the homophone table, the dictionary
    assert warmup.idle_steps() == (registry.load, homophones.warm, words.warm)


def test_a_dictionary_not_built_yet_is_built_while_the_prompt_waits(tmp_path, monkeypatch):
    from pixiu_cli.market.names import words
    from pixiu_cli.repl.warmup import Warmup

    class Client:
        def warm(self):
            pass

    assert words.dictionary_kept()  # the test session's cache holds it
    assert words.warm in Warmup(Client()).steps()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # a first start: nothing kept
    assert words.warm not in Warmup(Client()).steps()
    assert words.warm in Warmup(Client()).idle_steps()


# A fresh interpreter: the REPL's app offline, the warm-up run to its end, then the first turn,
# as the REPL runs it (rendered as on a terminal). What that turn imports, it waited for.
_FIRST_TURN = """
import io, sys
from pixiu_cli.app import open_app
from pixiu_cli.repl.state import ReplState
from pixiu_cli.repl.turn import run_chat_turn
from pixiu_cli.repl.warmup import Warmup
from pixiu_cli.kernel.settings import load_settings
from pixiu_cli.kernel.render import Renderer

app = open_app(load_settings(force_offline=True))
state = ReplState(app=app, renderer=Renderer(file=io.StringIO(), rich_output=True))
warmup = Warmup(app.agent.client)
warmup.start()
warmup.thread.join(timeout=120)
before = set(sys.modules)
run_chat_turn(state, QUESTION)
assert "缓存命中" in state.renderer.out.getvalue()
print(" ".join(sorted(set(sys.modules) - before)) or "-")
app.close()
"""


@pytest.mark.slow  # a new process, the whole warm-up (~2 s)
@pytest.mark.parametrize("question", ["茅台最近怎么样", "其他的持仓怎么样", "我的藏位是不是太重了"])
def test_after_the_warmup_the_first_turn_imports_nothing(tmp_path, question):
    printed = fresh_python(_FIRST_TURN.replace("QUESTION", repr(question)), clean_env(tmp_path), timeout=180)
    assert printed.split() == ["-"], printed


def test_what_the_warmup_loaded_is_kept_out_of_later_collections(tmp_path, monkeypatch):
    """A first turn's allocations used to set off a full collection over everything the start
    and the warm-up loaded (0.1-0.4 s); once the prompt waits again, it is frozen."""
    import gc

    monkeypatch.setenv("PIXIU_HOME", str(tmp_path))
    for name in ("DEEPSEEK_API_KEY", "OPENAI_API_KEY", "PIXIU_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    app = open_app(load_settings(force_offline=True))
    try:
        state = ReplState(app=app, renderer=Renderer(file=io.StringIO(), rich_output=False))
        frozen = gc.get_freeze_count()
        with create_pipe_input() as pipe:
            pipe.send_bytes(b"\x04")
            run_repl(state, input=pipe, output=DummyOutput())
        _join_warmups()
        assert gc.get_freeze_count() > frozen and gc.isenabled()
    finally:
        app.close()


def test_the_warmup_loads_the_stored_name_table_the_first_turn_takes(tmp_path, monkeypatch):
    """The first question's selection would load the stored name table (~1 MB of pickle):
    the warm-up has it in memory by then, and the turn takes that object."""
    from pixiu_cli.app import names_cache_dir
    from pixiu_cli.market.names import cache as name_cache
    from pixiu_cli.market.names import table as names

    monkeypatch.setenv("PIXIU_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    for name in ("DEEPSEEK_API_KEY", "OPENAI_API_KEY", "PIXIU_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    app = open_app(load_settings(force_offline=True))
    try:
        app.agent.builder.select("茅台最近怎么样")  # an earlier process stored the table
        assert list(names_cache_dir().glob("names-*.pickle"))
        names._stored_table.cache_clear()
        monkeypatch.setattr(name_cache, "_asked", False)  # as in a new process
        monkeypatch.setattr(name_cache, "_preloaded", {})
        state = ReplState(app=app, renderer=Renderer(file=io.StringIO(), rich_output=False))
        with create_pipe_input() as pipe:
            pipe.send_bytes(b"\x04")
            run_repl(state, input=pipe, output=DummyOutput())
        _join_warmups()
        (ahead,) = name_cache._preloaded.values()
        master = app.market.securities
        assert names.NameSource(master, cache_dir=names_cache_dir()).table([]) is ahead
        assert not name_cache._preloaded
    finally:
        names._stored_table.cache_clear()
        app.close()
