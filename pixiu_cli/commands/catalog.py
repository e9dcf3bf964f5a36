"""Every declared command, in the order of `pixiu --help` and /help."""

from __future__ import annotations

from pixiu_cli.market import commands as market_data
from pixiu_cli.market.news import commands as news
from pixiu_cli.memory import commands_alerts as alerts
from pixiu_cli.memory import commands_aliases as aliases

DECLARED = (*aliases.DECLARED, *alerts.DECLARED, *market_data.DECLARED, *news.DECLARED)
