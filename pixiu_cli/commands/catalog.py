"""Every declared command, in the order of `pixiu --help` and /help."""

from __future__ import annotations

from pixiu_cli.brief import commands as brief
from pixiu_cli.brief.push import commands as push
from pixiu_cli.conversation import commands as sessions
from pixiu_cli.conversation import commands_context as context
from pixiu_cli.conversation import commands_tools as tools
from pixiu_cli.home import commands as documents
from pixiu_cli.home import commands_config as config
from pixiu_cli.memory import commands as memory
from pixiu_cli.memory import commands_alerts as alerts
from pixiu_cli.memory import commands_aliases as aliases

DECLARED = (
    *memory.DECLARED,
    *aliases.DECLARED,
    *alerts.DECLARED,
    *sessions.DECLARED,
    *brief.DECLARED,
    *context.DECLARED,
    *config.DECLARED,
    *push.DECLARED,
    *documents.DECLARED,
    *tools.DECLARED,
)
