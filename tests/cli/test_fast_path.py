"""`pixiu`, `pixiu chat …`, `pixiu ask …`, `pixiu cache …`, `pixiu context …` and `pixiu data
sync …` with on/off
flags, plain int/str values and arguments skip typer's parsing; what that path accepts is read
from the commands' typer signatures, so it passes exactly the arguments typer would, and
leaves everything else to typer."""

from __future__ import annotations

import functools

import pytest
import typer

from pixiu_cli.cli import chat
from pixiu_cli.cli.app import FAST_COMMANDS as COMMANDS
from pixiu_cli.cli.app import app
from pixiu_cli.cli.fast import defaults_of, fast_call, fast_signature


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
    assert command is COMMANDS.get(" ".join(argv[:2]), COMMANDS.get(argv[0]))
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
    ["data", "sync", "--timeout", "5"],  # a float option: typer reads it
    ["data", "sync", "--help"],
    ["data", "status"],
]


@pytest.mark.parametrize("argv", SLOW, ids=" ".join)
def test_anything_else_goes_through_typer(argv):
    assert fast_call(argv, COMMANDS, default="chat") is None


def test_bare_pixiu_is_chat_with_every_default():
    command, kwargs = fast_call([], COMMANDS, default="chat")
    assert command is chat.chat and kwargs == defaults_of(chat.chat) == typer_arguments(["chat"])


def test_every_plain_flag_of_the_signature_is_a_fast_flag():
    signature = fast_signature(chat.ask)
    assert set(signature.flags) == {"--json", "--continue", "-c", "--offline", "--demo"}
    assert signature.arguments == ("text",)
    assert set(signature.values) == {"--conversation", "--model"}


def test_context_reads_its_value_options_with_their_bounds():
    signature = fast_signature(COMMANDS["context"])
    assert set(signature.values) == {"--conversation", "--turn"}
    assert signature.values["--turn"].low == 1 and signature.required == 0


def test_a_list_argument_takes_the_words_left():
    signature = fast_signature(COMMANDS["data sync"])
    assert signature.arguments == ("codes",) and signature.many == "codes" and signature.required == 0
    assert fast_call(["data", "sync"], COMMANDS, default="chat")[1]["codes"] == ()
    assert fast_call(["data", "sync", "1", "2"], COMMANDS, default="chat")[1]["codes"] == ["1", "2"]
