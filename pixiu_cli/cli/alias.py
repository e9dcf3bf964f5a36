"""`pixiu alias`: the user's names for stocks (宁王 → 300750), declared in commands/aliases.py."""

from __future__ import annotations

import typer

from pixiu_cli.cli import declared


def register(app: typer.Typer) -> None:
    declared.register(app, ("alias",))
