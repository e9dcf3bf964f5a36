"""`pixiu import|export|backup|restore`: declared in commands/documents.py."""

from __future__ import annotations

import typer

from pixiu_cli.cli import declared


def register(app: typer.Typer) -> None:
    declared.register(app, ("import", "export", "backup", "restore"))
