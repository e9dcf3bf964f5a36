"""Every declared command, in the order of `pixiu --help` and /help."""

from __future__ import annotations

from pixiu_cli.commands import account, alerts, aliases, memory

DECLARED = (*account.DECLARED, *memory.DECLARED, *aliases.DECLARED, *alerts.DECLARED)
