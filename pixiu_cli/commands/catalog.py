"""Every declared command, in the order of `pixiu --help` and /help."""

from __future__ import annotations

from pixiu_cli.commands import (
    account,
    alerts,
    aliases,
    brief,
    config,
    context,
    documents,
    market_data,
    memory,
    news,
    push,
    sessions,
    tools,
)

DECLARED = (
    *account.DECLARED,
    *memory.DECLARED,
    *aliases.DECLARED,
    *alerts.DECLARED,
    *market_data.DECLARED,
    *sessions.DECLARED,
    *brief.DECLARED,
    *context.DECLARED,
    *news.DECLARED,
    *config.DECLARED,
    *push.DECLARED,
    *documents.DECLARED,
    *tools.DECLARED,
)
