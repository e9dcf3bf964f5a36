"""The one error a statement that cannot be read raises."""

from __future__ import annotations

from pixiu_cli.kernel.errors import UserError


class StatementError(UserError):
    """The message is one line: what was found and what was needed, or the row and field."""
