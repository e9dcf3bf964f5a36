"""What a new command touches: one plain click function in its area's `commands.py` (exported in
`COMMANDS`) and one row in the root group's table (cli/root.py `TABLE`). Nothing else: the
same function answers `pixiu X` and `/X`, `pixiu --help` and /help list it, and its area is
imported only when it runs."""

from __future__ import annotations

import importlib
import sys
import types

import click
import pytest

from pixiu_cli.cli import root
from tests.helpers import clean_env, offline_repl, pixiu_in_process

AREA_MODULE = "pixiu_cli.memory.greeting_probe"  # a stand-in for a new area module


@click.command("greet", help="问候：说一声你好（测试用的新命令）。")
@click.argument("name")
def greet(name: str) -> None:
    from pixiu_cli.commands import common

    common.shown().line(f"你好，{name}")


@pytest.fixture
def new_command(monkeypatch):
    """The two things a new command adds: its module with COMMANDS, its row in TABLE."""
    module = types.ModuleType(AREA_MODULE)
    module.COMMANDS = {"greet": greet}
    monkeypatch.setitem(sys.modules, AREA_MODULE, module)
    monkeypatch.setitem(root.TABLE, "greet", root.Top(AREA_MODULE, "问候：说一声你好（测试用的新命令）。"))
    return module


def test_every_command_is_one_function_in_the_module_its_row_names():
    homes = set()
    for word, top in root.TABLE.items():
        command = importlib.import_module(top.module).COMMANDS[word]
        assert isinstance(command, click.Command) and command.name == word, word
        homes.add(top.module)
    # each in its area's commands module (or a surface's own: chat and ask, the REPL's /help)
    assert {m.rsplit(".", 1)[-1] for m in homes} <= {"commands", "talk"}, homes
    assert {m.split(".")[1] for m in homes} >= {"account", "memory", "conversation", "brief", "home"}


def test_a_new_command_answers_on_the_command_line(new_command, tmp_path):
    env = clean_env(tmp_path)
    done = pixiu_in_process(env, "greet", "小明", text=True)
    assert (done.returncode, done.stdout.strip()) == (0, "你好，小明")
    listed = pixiu_in_process(env, "--help", text=True).stdout
    assert "greet" in listed and "问候：说一声你好" in listed
    refused = pixiu_in_process(env, "greet", text=True)
    assert refused.returncode == 2 and "缺少参数 name" in refused.stderr


def test_a_new_command_answers_in_the_repl(new_command, tmp_path, monkeypatch):
    from pixiu_cli.commands import common
    from pixiu_cli.repl import slash

    monkeypatch.setattr(common, "command_group", lambda: root.root)
    with offline_repl(tmp_path) as (state, out):
        slash.run_slash(state, "greet", ["小红"], "小红")
        assert "你好，小红" in out.getvalue()
        assert ("greet", "问候：说一声你好（测试用的新命令）。") in slash.words()
        assert slash.usage("greet") == "/greet NAME"


def test_help_imports_no_area(tmp_path):
    """The table is all `pixiu --help` reads: a command's area loads when the command runs."""
    env = clean_env(tmp_path)
    code = (
        "import sys\nsys.argv = ['pixiu', '--help']\nfrom pixiu_cli.cli.root import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "areas = {'account', 'market', 'memory', 'conversation', 'brief', 'home'}\n"
        "print(sorted({m.split('.')[1] for m in sys.modules if m.startswith('pixiu_cli.')} & areas), file=sys.stderr)\n"
    )
    import subprocess

    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.stderr.strip().splitlines()[-1] == "[]", done.stderr
