"""`pixiu`, `pixiu chat …`, `pixiu ask …`, `pixiu cache …` and `pixiu context …` with on/off
flags, plain int/str values and arguments skip typer's parsing; what that path accepts is read
from the commands' typer signatures, so it passes exactly the arguments typer would, and
leaves everything else to typer."""

from __future__ import annotations

import functools
import importlib

import pytest
import typer

from pixiu_cli.cli import chat, talk
from pixiu_cli.cli.app import FAST_COMMANDS as COMMANDS
from pixiu_cli.cli.declared import FAST_DECLARED, open_context
from pixiu_cli.cli.fast import FastCommand, FastSignature, declared_signature, defaults_of, fast_call, fast_signature
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
    ["ask", "茅台怎么样"],
    ["ask", "--json", "茅台怎么样"],
    ["ask", "-c", "--offline", "--demo", "茅台怎么样"],
    ["ask", "茅台怎么样", "--continue"],
    ["ask", "-"],
    ["chat"],
    ["chat", "--demo", "--offline", "-c"],
    ["chat", "--resume", "3"],
    ["ask"],  # no question: the command reads stdin, as under typer
    ["ask", "--model", "x", "茅台怎么样"],
    ["ask", "--conversation", "007", "茅台怎么样"],
    ["cache", "--conversation", "2", "--json"],
    ["context"],
    ["context", "--demo", "宁德时代能买吗"],
    ["context", "宁德时代能买吗", "--demo", "--json"],
    ["context", "--turn", "1", "--conversation", "4", "--raw"],
    ["context", "--turn", "1", "--turn", "2"],  # the last one counts
    ["context", "-", "--explain"],
]


@pytest.mark.parametrize("argv", FAST, ids=" ".join)
def test_the_fast_path_passes_what_typer_would(argv):
    found = fast_call(argv, COMMANDS, default="chat")
    assert found is not None
    command, kwargs = found
    assert command is COMMANDS[" ".join(argv[:2]) if " ".join(argv[:2]) in COMMANDS else argv[0]]().run
    assert kwargs == typer_arguments(argv)


SLOW = [
    ["ask", "--retry-partial", "茅台怎么样"],  # an on/off pair, not a plain flag
    ["ask", "--help"],
    ["ask", "--jsn", "茅台怎么样"],  # unknown: typer's own message
    ["ask", "-x"],  # a question starting with "-"
    ["ask", "one", "two"],
    ["chat", "stray"],
    ["chat", "--resume", "x"],  # not a whole number: typer's message
    ["chat", "--resume"],  # no value
    ["chat", "--resume=3"],
    ["ask", "--model", "-x", "茅台怎么样"],
    ["context", "--turn", "0"],  # below the option's min=1: typer's message
    ["context", "--turn", "-1"],
    ["context", "--conversation", "+4"],
    ["context", "a", "b"],
    ["context", "--", "-x"],
    ["sessions"],  # not a fast command
    # `data sync` is a plain click command (market/commands.py): the root group reads it, typer never loads
    ["data", "sync"],
    ["data", "sync", "600519"],
    ["data", "sync", "600519", "000001", "sh000300"],
    ["data", "sync", "--source", "akshare", "600519", "--since", "2024-01-02"],
    ["data", "sync", "--fundamentals", "--if-trading-day"],
    ["data", "sync", "--timeout", "5"],
    ["data", "sync", "--help"],
    ["data", "status"],
]


@pytest.mark.parametrize("argv", SLOW, ids=" ".join)
def test_anything_else_goes_through_typer(argv):
    assert fast_call(argv, COMMANDS, default="chat") is None


def test_bare_pixiu_is_chat_with_every_default():
    command, kwargs = fast_call([], COMMANDS, default="chat")
    assert command is talk.chat and kwargs == defaults_of(chat.chat) == typer_arguments(["chat"])


def test_every_plain_flag_of_the_signature_is_a_fast_flag():
    signature = fast_signature(chat.ask)
    assert set(signature.flags) == {"--json", "--continue", "-c", "--offline", "--demo"}
    assert signature.arguments == ("text",)
    assert set(signature.values) == {"--conversation", "--model"}


def test_context_reads_its_value_options_with_their_bounds():
    signature = COMMANDS["context"]().signature
    assert set(signature.values) == {"--conversation", "--turn"}
    assert signature.values["--turn"].low == 1 and signature.required == 0


def test_a_list_argument_takes_the_words_left():
    # `data sync`, the fast command that took a list, runs through the root group now; the
    # path's reading of a list is checked on a command of the signature it had
    assert "data sync" not in COMMANDS
    signature = FastSignature({}, {}, {}, ("codes",), 0, many="codes")
    commands = {"data sync": lambda: FastCommand(lambda **kw: None, signature)}
    assert fast_call(["data", "sync"], commands, default="chat")[1]["codes"] == ()
    assert fast_call(["data", "sync", "1", "2"], commands, default="chat")[1]["codes"] == ["1", "2"]


@pytest.mark.parametrize("typed, written", [(chat.chat, talk.CHAT), (chat.ask, talk.ASK)], ids=["chat", "ask"])
def test_chat_and_ask_signatures_written_out_are_what_typer_reads(typed, written):
    assert written.signature == fast_signature(typed)


@pytest.mark.parametrize(
    "command", [d for d in DECLARED if isinstance(d, Command) and CLI in d.surfaces], ids=lambda d: d.name
)
def test_a_declarations_signature_is_what_typer_reads_from_its_typer_function(command):
    assert declared_signature(command) == fast_signature(typer_function(command, open_context))


def test_the_declared_fast_commands_are_the_catalogs():
    for path, module in FAST_DECLARED.items():
        declared = next(d for d in importlib.import_module(module).DECLARED if d.path == path)
        assert any(d is declared for d in DECLARED), path
