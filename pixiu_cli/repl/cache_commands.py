"""/cache: cache accounting, cost and why each call missed."""

from __future__ import annotations

from pixiu_cli.accounting.report import build_report
from pixiu_cli.repl.commands import CommandError, ParsedCommand, registry
from pixiu_cli.repl.state import ReplState
from pixiu_cli.views.presenters import show_cache


@registry.command("cache", "缓存命中、费用与每次未命中的原因（按轮的柱状图）", "/cache")
def cache_command(state: ReplState, cmd: ParsedCommand) -> None:
    if cmd.args:
        raise CommandError("/cache 不接受参数")
    show_cache(state.renderer, build_report(state.app.store, state.conversation_id, state.app.prices))
