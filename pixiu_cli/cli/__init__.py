"""The command line (`pixiu`): app.py holds the typer app and the entry point, common.py what
the commands share, and each other module one group of commands."""

from pixiu_cli.cli.root import main

__all__ = ["main"]
