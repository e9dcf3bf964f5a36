"""`pixiu holdings|trade|trades|cash`: the investor's real account (broker statements in,
holdings, cash and P&L out), declared in commands/account.py."""

from __future__ import annotations

import typer

from pixiu_cli.cli import declared


def register(app: typer.Typer) -> None:
    declared.register(app, ("holdings", "trade", "trades", "cash"))
