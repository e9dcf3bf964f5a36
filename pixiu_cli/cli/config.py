"""`pixiu config set|show`: declared in commands/config.py."""

from __future__ import annotations

import typer

from pixiu_cli.cli import declared


def register(app: typer.Typer) -> None:
    declared.register(app, ("config",))
