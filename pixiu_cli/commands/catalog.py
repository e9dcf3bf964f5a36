"""Every declared command, in the order of `pixiu --help` and /help."""

from __future__ import annotations

from pixiu_cli.brief import commands as brief
from pixiu_cli.brief.push import commands as push
from pixiu_cli.conversation import commands as sessions
from pixiu_cli.conversation import commands_context as context
from pixiu_cli.conversation import commands_tools as tools
from pixiu_cli.market import commands as market_data
from pixiu_cli.market.news import commands as news
from pixiu_cli.memory import commands_alerts as alerts
from pixiu_cli.memory import commands_aliases as aliases

DECLARED = (
    *aliases.DECLARED,
    *alerts.DECLARED,
    *market_data.DECLARED,
    *sessions.DECLARED,
    *brief.DECLARED,
    *context.DECLARED,
    *news.DECLARED,
    *push.DECLARED,
    *tools.DECLARED,
)
