"""`pixiu memory list|accept|replace|pin|unpin`, `pixiu remember`, `pixiu forget`: the memory
for scripts, declared in commands/memory.py (as /memory, /remember and /forget in the REPL)."""

from __future__ import annotations

import typer

from pixiu_cli.cli import declared


def register(app: typer.Typer) -> None:
    declared.register(app, ("memory", "remember", "forget"))
