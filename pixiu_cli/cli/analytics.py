"""`pixiu alert …`: declared in memory/commands_alerts.py."""

from __future__ import annotations

import typer

from pixiu_cli.cli import declared


def register(app: typer.Typer) -> None:
    declared.register(app, ("alert",))
