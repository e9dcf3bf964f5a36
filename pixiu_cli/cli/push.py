"""`pixiu push test` and `pixiu schedule`, declared in commands/push.py (`pixiu brief --push
--last` in commands/brief.py). The sending is services/push.py; views/push.py says a line
per channel."""

from __future__ import annotations

import typer

from pixiu_cli.cli import declared


def register(app: typer.Typer) -> None:
    declared.register(app, ("push", "schedule"))
