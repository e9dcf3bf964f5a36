"""`pixiu data …`, `pixiu watch …` and `pixiu chart`: declared in commands/market_data.py and
commands/aliases.py."""

from __future__ import annotations

import typer

from pixiu_cli.cli import declared


def register(app: typer.Typer) -> None:
    declared.register(app, ("data", "watch", "chart"))
