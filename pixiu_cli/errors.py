"""The one base class for failures the user is meant to read. Imports nothing from pixiu_cli,
so every layer can raise it and every entry point can catch it once."""

from __future__ import annotations


class UserError(Exception):
    """A failure phrased as one line for the user (Simplified Chinese); nothing more is shown.
    `exit_code` is the process status when it ends a command."""

    exit_code = 1
