"""The typer app: the root command and every command group (one module each in this
package), in the order of `pixiu --help`. Built only when a command goes through typer:
cli/app.py runs the common calls of `pixiu`, `chat`, `ask`, `context` and `cache` without it."""

from __future__ import annotations

import functools
from typing import Annotated

import typer

from pixiu_cli.cli import (
    account,
    alias,
    analytics,
    chat,
    common,
    config,
    declared,
    documents,
    evals,
    market,
    mcp,
    memory,
    push,
)
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
    account,
    memory,
    ("cache",),
    evals,
    alias,
    config,
    ("offline-server",),
    market,
    ("market", "fundamentals"),
    ("news",),
    analytics,
    ("signal",),
    mcp,
):
    # a tuple: top-level words declared in pixiu_cli/commands/
    declared.register(app, group) if isinstance(group, tuple) else group.register(app)


@functools.cache
def click_command():
    """typer converts the app to a click command on every call; a process that runs main more
    than once (the in-process runner) converts it once."""
    return typer.main.get_command(app)
