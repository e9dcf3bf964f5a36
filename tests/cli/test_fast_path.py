"""`pixiu data sync …` with on/off flags, plain int/str values and arguments skips typer's parsing;
what that path accepts is read from the command's typer signature, so it passes exactly the
arguments typer would, and leaves everything else to typer. `pixiu`, `pixiu chat …`, `pixiu ask …`,
`pixiu cache` and `pixiu context` are plain click commands of the root group: they take no fast
path, and click reads what typer read."""

from __future__ import annotations

import functools
import importlib

import click
import pytest
import typer

from pixiu_cli.cli import talk
from pixiu_cli.cli.app import FAST_COMMANDS as COMMANDS
from pixiu_cli.cli.declared import FAST_DECLARED, open_context
from pixiu_cli.cli.fast import declared_signature, fast_call, fast_signature
from pixiu_cli.cli.typer_app import app  # the commands still declared (cli/root.py passes them on)
from pixiu_cli.commands.catalog import DECLARED
from pixiu_cli.commands.declaration import CLI, Command
from pixiu_cli.commands.typer_surface import typer_function


@functools.cache
def _typer_group():
    return typer.main.get_command(app)  # ~50 ms each: once for the module's cases


def typer_arguments(argv: list[str]) -> dict:
    """The keyword arguments typer's own parsing gives the command's function."""
    group = _typer_group()
    name, rest = argv[0], argv[1:]
    with group.make_context("pixiu", [name], resilient_parsing=True) as parent:
        command = group.get_command(parent, name)
        if name == "data":  # a group: its command is the next word
            with command.make_context(name, rest[:1], parent=parent, resilient_parsing=True) as outer:
                name, rest, parent, command = rest[0], rest[1:], outer, command.get_command(outer, rest[0])
                return _parsed(command, name, rest, parent)
        return _parsed(command, name, rest, parent)


def _parsed(command, name: str, rest: list[str], parent) -> dict:
    with command.make_context(name, list(rest), parent=parent) as ctx:
        return dict(ctx.params)


FAST = [
    ["data", "sync"],
    ["data", "sync", "600519"],
    ["data", "sync", "600519", "000001", "sh000300"],
    ["data", "sync", "--source", "akshare", "600519", "--since", "2024-01-02"],
    ["data", "sync", "--fundamentals", "--if-trading-day"],
]


@pytest.mark.parametrize("argv", FAST, ids=" ".join)
def test_the_fast_path_passes_what_typer_would(argv):
    found = fast_call(argv, COMMANDS, default="chat")
    assert found is not None
    command, kwargs = found
    assert command is COMMANDS[" ".join(argv[:2]) if " ".join(argv[:2]) in COMMANDS else argv[0]]().run
    assert kwargs == typer_arguments(argv)


SLOW = [
    ["context", "--turn", "0"],  # below the option's min=1: typer's message
    ["context", "--turn", "-1"],
    ["context", "--conversation", "+4"],
    ["context", "a", "b"],
    ["context", "--", "-x"],
    ["sessions"],  # not a fast command
    [],  # bare pixiu: the root group's default, chat
    ["chat"],
    ["chat", "--demo", "--offline", "-c"],
    ["ask", "茅台怎么样"],
    ["ask", "--json", "茅台怎么样"],
    ["data", "sync", "--timeout", "5"],  # a float option: typer reads it
    ["data", "sync", "--help"],
    ["data", "status"],
]


@pytest.mark.parametrize("argv", SLOW, ids=" ".join)
def test_anything_else_goes_through_typer(argv):
    assert fast_call(argv, COMMANDS, default="chat") is None


ASK_DEFAULTS = {
    "text": None,
    "as_json": False,
    "continue_": False,
    "conversation": None,
    "model": None,
    "offline": False,
    "demo": False,
    "retry_partial": None,
}
CHAT_DEFAULTS = {"demo": False, "resume": None, "continue_": False, "model": None, "offline": False}

# What typer passed chat's and ask's functions for these command lines (the fast path's cases
# when they had one): click's reading of the commands in cli/talk.py must be the same.
TALK = [
    (["ask", "茅台怎么样"], {"text": "茅台怎么样"}),
    (["ask", "--json", "茅台怎么样"], {"text": "茅台怎么样", "as_json": True}),
    (
        ["ask", "-c", "--offline", "--demo", "茅台怎么样"],
        {"text": "茅台怎么样", "continue_": True, "offline": True, "demo": True},
    ),
    (["ask", "茅台怎么样", "--continue"], {"text": "茅台怎么样", "continue_": True}),
    (["ask", "-"], {"text": "-"}),
    (["ask"], {}),  # no question: the command reads stdin
    (["ask", "--model", "x", "茅台怎么样"], {"text": "茅台怎么样", "model": "x"}),
    (["ask", "--model", "-x", "茅台怎么样"], {"text": "茅台怎么样", "model": "-x"}),  # as typer read it
    (["ask", "--conversation", "007", "茅台怎么样"], {"text": "茅台怎么样", "conversation": 7}),
    (["ask", "--retry-partial", "茅台怎么样"], {"text": "茅台怎么样", "retry_partial": True}),
    (["ask", "--no-retry-partial", "茅台怎么样"], {"text": "茅台怎么样", "retry_partial": False}),
    (["chat"], {}),
    (["chat", "--demo", "--offline", "-c"], {"demo": True, "offline": True, "continue_": True}),
    (["chat", "--resume", "3"], {"resume": 3}),
    (["chat", "--resume=3"], {"resume": 3}),
]


@pytest.mark.parametrize("argv, given", TALK, ids=[" ".join(argv) for argv, _ in TALK])
def test_chat_and_ask_read_what_typer_read(argv, given):
    command = talk.COMMANDS[argv[0]]
    with command.make_context(argv[0], argv[1:]) as ctx:
        assert ctx.params == dict(CHAT_DEFAULTS if argv[0] == "chat" else ASK_DEFAULTS, **given)


@pytest.mark.parametrize(
    "argv",
    [
        ["ask", "--jsn", "x"],
        ["ask", "-x"],
        ["ask", "one", "two"],
        ["chat", "stray"],
        ["chat", "--resume", "x"],
        ["chat", "--resume"],
    ],
    ids=" ".join,
)
def test_chat_and_ask_refuse_what_typer_refused(argv):
    command = talk.COMMANDS[argv[0]]
    with pytest.raises(click.UsageError):
        command.make_context(argv[0], argv[1:])


def test_bare_pixiu_is_chat_with_every_default(monkeypatch):
    from pixiu_cli.cli.root import root

    ran = []
    monkeypatch.setattr(talk, "run_chat", lambda *given: ran.append(given))
    assert fast_call([], COMMANDS, default="chat") is None
    root.main([], standalone_mode=False)
    with talk.chat.make_context("chat", []) as ctx:
        assert ran == [tuple(ctx.params.values())] == [tuple(CHAT_DEFAULTS.values())]


# What the fast path passed for them, now the root group's own parsing (no typer either).
ROOT_PARSED = [
    (["cache", "--conversation", "2", "--json"], {"conversation": 2, "as_json": True}),
    (["context"], {"text": None, "turn_option": None, "demo": False}),
    (["context", "--demo", "宁德时代能买吗"], {"text": "宁德时代能买吗", "demo": True}),
    (["context", "宁德时代能买吗", "--demo", "--json"], {"text": "宁德时代能买吗", "demo": True, "json_out": True}),
    (["context", "--turn", "1", "--conversation", "4", "--raw"], {"turn_option": 1, "conversation": 4, "raw": True}),
    (["context", "--turn", "1", "--turn", "2"], {"turn_option": 2}),  # the last one counts
    (["context", "-", "--explain"], {"text": "从标准输入读到的问题", "explain": True}),  # "-": read from stdin
]


@pytest.mark.parametrize("argv, want", ROOT_PARSED, ids=lambda a: " ".join(a) if isinstance(a, list) else "")
def test_cache_and_context_go_through_the_root_group(argv, want, monkeypatch):
    from pixiu_cli.cli.root import root
    from pixiu_cli.conversation import commands

    monkeypatch.setattr(commands, "read_stdin_text", lambda: "从标准输入读到的问题")
    assert fast_call(argv, COMMANDS, default="chat") is None
    command = root.get_command(None, argv[0])
    with root.make_context("pixiu", [argv[0]], resilient_parsing=True) as parent:
        with command.make_context(argv[0], argv[1:], parent=parent) as ctx:
            assert {name: ctx.params[name] for name in want} == want


def test_context_reads_its_value_options_with_their_bounds():
    from pixiu_cli.conversation.commands import context

    options = {o: p for p in context.params for o in getattr(p, "opts", ()) if o.startswith("--")}
    assert {"--conversation", "--turn"} <= set(options)
    assert options["--turn"].type.min == 1 and not any(p.required for p in context.params)


def test_a_list_argument_takes_the_words_left():
    signature = COMMANDS["data sync"]().signature
    assert signature.arguments == ("codes",) and signature.many == "codes" and signature.required == 0
    assert fast_call(["data", "sync"], COMMANDS, default="chat")[1]["codes"] == ()
    assert fast_call(["data", "sync", "1", "2"], COMMANDS, default="chat")[1]["codes"] == ["1", "2"]


@pytest.mark.parametrize(
    "command", [d for d in DECLARED if isinstance(d, Command) and CLI in d.surfaces], ids=lambda d: d.name
)
def test_a_declarations_signature_is_what_typer_reads_from_its_typer_function(command):
    assert declared_signature(command) == fast_signature(typer_function(command, open_context))


def test_the_declared_fast_commands_are_the_catalogs():
    for path, module in FAST_DECLARED.items():
        declared = next(d for d in importlib.import_module(module).DECLARED if d.path == path)
        assert any(d is declared for d in DECLARED), path
