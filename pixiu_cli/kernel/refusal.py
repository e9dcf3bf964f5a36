"""The one error a use case raises for a request it refuses; nothing was changed."""

from __future__ import annotations

from pixiu_cli.kernel.errors import UserError


class RequestError(UserError):
    """The message is one line for the user (or, from a tool, for the model)."""
