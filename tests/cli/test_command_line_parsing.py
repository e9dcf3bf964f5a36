"""How the command line reads what is typed, now that every command is a plain click command of
the root group (cli/root.py): chat and ask take the values they always took, refuse what they
always refused, a bare `pixiu` is chat with every default, and cache and context read their
options through the group."""

from __future__ import annotations

import click
import pytest

from pixiu_cli.cli import talk

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
    root.main([], standalone_mode=False)
    with talk.chat.make_context("chat", []) as ctx:
        assert ran == [tuple(ctx.params.values())] == [tuple(CHAT_DEFAULTS.values())]


# What `pixiu cache` and `pixiu context` read, by the root group's own parsing.
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
    from pixiu_cli.commands import params

    monkeypatch.setattr(params, "read_stdin_text", lambda: "从标准输入读到的问题")
    command = root.get_command(None, argv[0])
    with root.make_context("pixiu", [argv[0]], resilient_parsing=True) as parent:
        with command.make_context(argv[0], argv[1:], parent=parent) as ctx:
            assert {name: ctx.params[name] for name in want} == want


def test_context_reads_its_value_options_with_their_bounds():
    from pixiu_cli.conversation.commands import context

    options = {o: p for p in context.params for o in getattr(p, "opts", ()) if o.startswith("--")}
    assert {"--conversation", "--turn"} <= set(options)
    assert options["--turn"].type.min == 1 and not any(p.required for p in context.params)
