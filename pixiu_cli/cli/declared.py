"""The declared commands (pixiu_cli/commands/) on the command line: each runs with a context
over the settings' database (the demo's with --demo), closed when the command ends."""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import contextmanager

import typer

from pixiu_cli.cli import common


@contextmanager
def open_context(demo: bool):
    from contextlib import ExitStack
    from functools import cache

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


def function(*path: str):
    """The typer function of a declared command, for cli/fast.py's calls without typer."""
    from pixiu_cli.commands.catalog import DECLARED
    from pixiu_cli.commands.typer_surface import typer_function

    return typer_function(next(d for d in DECLARED if d.path == path), open_context)


def register(app: typer.Typer, tops: Iterable[str]) -> None:
    """The declared commands under each top-level word of `tops`, in that order."""
    from pixiu_cli.commands.catalog import DECLARED
    from pixiu_cli.commands.typer_surface import register as register_declared

    register_declared(app, DECLARED, tops, open_context)
