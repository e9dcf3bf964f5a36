"""What the declaration tests share: a declaration by its path, a context that needs no
database, the request either surface builds from what was typed, and the command line's leaves."""

from __future__ import annotations

from datetime import datetime

from pixiu_cli.commands.catalog import DECLARED
from pixiu_cli.commands.declaration import REPL, Command, Context, read_values
from pixiu_cli.commands.slash import parse
from tests.helpers import clean_env, pixiu_in_process


def declared(path: tuple[str, ...]) -> Command:
    return next(d for d in DECLARED if isinstance(d, Command) and d.path == path)


def context(surface: str) -> Context:
    def no_database():
        raise AssertionError("reading these values needs no database")

    return Context(surface, None, no_database, lambda: datetime(2026, 12, 1, 10, 0), lambda: "diluted")


def slash_request(path: tuple[str, ...], line: str):
    command = declared(path)
    return command.request(**read_values(command, parse(command, line.split(), line), context(REPL)))


def cli_request(path: tuple[str, ...], monkeypatch, tmp_path, *argv: str):
    """The request the command line's generated command builds from `argv` (the service is not called)."""
    from pixiu_cli.commands import declaration

    built = []

    def build_only(command, ctx, given, as_json=False):
        built.append(command.request(**read_values(command, given, ctx)))

    monkeypatch.setattr(declaration, "run", build_only)  # what the command line runs (run_opened)
    done = pixiu_in_process(clean_env(tmp_path), *path, *argv, text=True)
    return done, built


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
