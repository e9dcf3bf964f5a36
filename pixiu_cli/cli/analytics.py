"""`pixiu profile` and `pixiu track`: declared in commands/market_data.py and commands/alerts.py."""

from __future__ import annotations

import typer

from pixiu_cli.cli import declared


def register(app: typer.Typer) -> None:
    declared.register(app, ("profile", "track"))
