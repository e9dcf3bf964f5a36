"""What the command tests share: the command line's leaves, and the values either surface hands
a command's one function."""

from __future__ import annotations

from tests.helpers import clean_env, pixiu_in_process  # noqa: F401


def leaves(command, path=()):
    """Every command of a click tree with its path of words."""
    children = getattr(command, "commands", None)
    if not children:
        yield path, command
        return
    for name, child in children.items():
        yield from leaves(child, (*path, name))


# The plain click commands of cli/root.py (conversation, brief, …): the values each surface
# hands the command's one function, read by click's parsing (the function is not run).


def slash_params(word: str, line: str) -> dict:
    """The values `/word line` hands the command, or its one-line refusal (CommandError)."""
    import shlex

    from pixiu_cli.repl import slash

    command = slash.command_of(word)
    seen: list[dict] = []
    original = command.callback
    command.callback = lambda **values: seen.append(values)
    try:
        slash.run_slash(object(), word, shlex.split(line))  # any session: the REPL's surface
    finally:
        command.callback = original
    return seen[0]


def cli_params(word: str, *argv: str) -> dict:
    """The values `pixiu word argv…` hands the command."""
    from pixiu_cli.cli.root import command_of

    with command_of(word).make_context(word, list(argv)) as ctx:
        return dict(ctx.params)
