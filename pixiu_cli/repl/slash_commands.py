"""The REPL's slash commands: one registry, filled with the declared commands
(repl/declared_commands.py) on first use — a `/` typed, a slash command, the warm-up — not
before the prompt: importing every declaration module costs the prompt ~60 ms. It sits above
the modules the declared commands run through (state, turn), so they never import it back."""

from __future__ import annotations

from pixiu_cli.repl.registry import CommandRegistry


def _register_declared() -> None:
    from pixiu_cli.repl.declared_commands import register_declared

    register_declared(registry)


registry = CommandRegistry(_register_declared)
