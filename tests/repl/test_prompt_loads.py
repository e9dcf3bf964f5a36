"""The REPL draws its prompt without importing the areas' commands modules (the /words of
cli/root.py's table) or starting the offline server: both are loaded on first use, or by the
warm-up once the prompt is up."""

from __future__ import annotations

import pytest

from tests.helpers import clean_env, fresh_python

# A fresh interpreter: `pixiu chat --demo`'s REPL up to its first prompt (the warm-up thread
# starts once the prompt is drawn), then Ctrl-D and the warm-up run to its end.
_UP_TO_THE_PROMPT = """
import io, sys
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from pixiu_cli.app import open_app
from pixiu_cli.repl import warmup
from pixiu_cli.repl.loop import run_repl
from pixiu_cli.repl.state import ReplState
from pixiu_cli.kernel.settings import load_settings
from pixiu_cli.kernel.render import Renderer

def loaded():
    return sorted(
        m for m in sys.modules if m.endswith(".commands") or m.startswith("pixiu_cli.conversation.offline.")
    )

at_prompt = []
original = warmup.Warmup.start
def start(self):
    at_prompt.extend(loaded())
    original(self)
warmup.Warmup.start = start

from pixiu_cli.cli.root import root
from pixiu_cli.commands import common
common.command_group = lambda: root  # as the entry point hands it down
app = open_app(load_settings(force_offline=True), demo=DEMO)
state = ReplState(app=app, renderer=Renderer(file=io.StringIO(), rich_output=False))
with create_pipe_input() as pipe:
    pipe.send_bytes(b"\\x04")
    run_repl(state, input=pipe, output=DummyOutput())
for thread in __import__("threading").enumerate():
    if thread.name == "pixiu-warmup":
        thread.join(timeout=120)
print("PROMPT", " ".join(at_prompt) or "-")
print("AFTER", " ".join(loaded()))
print("SERVER", app._offline_server.started, app.agent.client.base_url == app._offline_server.server.base_url)
app.close()
"""


def _declaration_modules() -> set[str]:
    """Every area's commands module the REPL offers a /word from (cli/root.py's table)."""
    from pixiu_cli.cli.root import TABLE

    return {top.module for top in TABLE.values() if top.repl}


@pytest.mark.slow  # a new process and the whole warm-up
@pytest.mark.parametrize("demo", [False, True])
def test_the_prompt_waits_for_no_declaration_nor_the_offline_server(tmp_path, demo):
    printed = fresh_python(_UP_TO_THE_PROMPT.replace("DEMO", repr(demo)), clean_env(tmp_path), timeout=180)
    lines = dict(line.split(" ", 1) for line in printed.splitlines() if line.startswith(("PROMPT", "AFTER", "SERVER")))
    declarations = _declaration_modules()
    assert len(declarations) >= 6
    assert set(lines["PROMPT"].split()) & declarations == set(), lines["PROMPT"]
    assert set(lines["AFTER"].split()) >= declarations  # the warm-up loaded them for the first `/`
    assert "pixiu_cli.conversation.offline.server" not in lines["PROMPT"].split()
    assert "pixiu_cli.conversation.offline.server" in lines["AFTER"].split()
    assert lines["SERVER"] == "True True"  # the warm-up started it, and the client is addressed to it
