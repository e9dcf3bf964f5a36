"""The typer app of the commands not yet plain click commands (the declared framework's and
cli/'s typer functions). Built only when one of them runs: the root group (cli/root.py)
passes the words to it through `COMMANDS`, one pass-through click command per top word."""

from __future__ import annotations

import functools
from typing import Annotated

import typer

from pixiu_cli.cli import alias, analytics, chat, common, config, declared, documents, evals, mcp, memory, push
from pixiu_cli.cli.fast import defaults_of

app = typer.Typer(
    name="pixiu",
    help="貔貅 pixiu：A 股投资者的终端助理（DeepSeek 或任意 OpenAI 兼容接口；无 key 时离线）。",
    no_args_is_help=False,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


def _version(shown: bool) -> None:
    if shown:
        from pixiu_cli import __version__

        common.renderer().line(f"pixiu {__version__}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def root(
    ctx: typer.Context,
    version: Annotated[
        bool, typer.Option("--version", help="显示版本并退出", is_eager=True, callback=_version)
    ] = False,
) -> None:
    if ctx.invoked_subcommand is None:
        chat.chat(**defaults_of(chat.chat))


# The order of `pixiu --help`.
for group in (
    chat,
    ("sessions",),
    ("brief",),
    push,
    ("context",),
    documents,
    memory,
    ("cache",),
    evals,
    alias,
    config,
    ("offline-server",),
    analytics,
    mcp,
):
    # a tuple: top-level words declared in pixiu_cli/commands/
    declared.register(app, group) if isinstance(group, tuple) else group.register(app)


@functools.cache
def click_command():
    """typer converts the app to a click command on every call; a process that runs main more
    than once (the in-process runner) converts it once."""
    return typer.main.get_command(app)


def _pass_through(word: str):
    """A click command handing its words to the typer command of `word`."""
    import click

    def run(words: tuple[str, ...]) -> None:
        code = click_command().commands[word].main(list(words), prog_name=f"pixiu {word}", standalone_mode=False)
        if isinstance(code, int) and code:
            click.get_current_context().exit(code)

    return click.Command(
        word,
        callback=run,
        params=[click.Argument(["words"], nargs=-1, type=click.UNPROCESSED)],
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": []},
        add_help_option=False,
    )


class _Legacy(dict):
    def __missing__(self, word: str):
        self[word] = _pass_through(word)
        return self[word]


COMMANDS = _Legacy()
