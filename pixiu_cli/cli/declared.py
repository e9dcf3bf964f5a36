"""The declared commands (pixiu_cli/commands/) on the command line: each runs with a context
over the settings' database (the demo's with --demo), closed when the command ends."""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import contextmanager
from functools import cache
from typing import TYPE_CHECKING

from pixiu_cli.cli import common

if TYPE_CHECKING:
    import typer

    from pixiu_cli.cli.fast import FastCommand


@contextmanager
def open_context(demo: bool):
    from contextlib import ExitStack

    from pixiu_cli.commands.declaration import CLI, Context

    loaded = cache(common.settings)  # read when first asked: `config set` must mend a broken config.toml
    shown = common.renderer()
    with ExitStack() as stack:

        def open_app(model: str | None, offline: bool):
            return stack.enter_context(common.opened(model, offline, demo, None, False, shown=shown))[1]

        yield Context(
            CLI,
            shown,
            connect=lambda: stack.enter_context(common.database(demo)),
            clock=lambda: common.clock(loaded())(),
            cost_method=lambda: loaded().cost_method,
            settings=loaded,
            demo=demo,
            on_close=stack.callback,
            open_app=open_app,
        )


# The declared commands the entry point runs without typer (cli/fast.py), by the module that
# declares them: importing the catalog would import every command's declaration.
# tests/cli/test_fast_path.py checks these against the catalog.
FAST_DECLARED = {
    ("context",): "pixiu_cli.conversation.commands_context",
    ("cache",): "pixiu_cli.conversation.commands_context",
}


@cache
def fast_command(*path: str) -> FastCommand:
    """The declared command at `path`, to be called with the words cli/fast.py read."""
    import importlib

    from pixiu_cli.cli.fast import FastCommand, declared_signature
    from pixiu_cli.commands.declaration import run_opened

    command = next(d for d in importlib.import_module(FAST_DECLARED[path]).DECLARED if d.path == path)

    def run_fast(**given) -> None:
        status = run_opened(command, open_context, given)
        if status:
            raise SystemExit(status)

    return FastCommand(run_fast, declared_signature(command))


def register(app: typer.Typer, tops: Iterable[str]) -> None:
    """The declared commands under each top-level word of `tops`, in that order."""
    from pixiu_cli.commands.catalog import DECLARED
    from pixiu_cli.commands.typer_surface import register as register_declared

    register_declared(app, DECLARED, tops, open_context)
