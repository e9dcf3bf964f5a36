"""/brief [--yes] [--push [--last]]: `pixiu brief` inside the REPL (/news is declared in
commands/news.py). The brief runs as a turn of the current conversation, so /context and /cache show its
call; --push sends it once stored (cli/push.py's lines), --last the newest stored one again."""

from __future__ import annotations

from pixiu_cli.repl.registry import CommandError, ParsedCommand, registry
from pixiu_cli.repl.state import ReplState


@registry.command(
    "brief",
    "每日简报：本地算出的持仓事实由模型写成简报，结论存为报告（费用超过设定金额时需加 --yes；--push 推送）",
    "/brief [--yes] [--push [--last]]",
)
def brief_command(state: ReplState, cmd: ParsedCommand) -> None:
    from pixiu_cli.repl.turn import turn_status
    from pixiu_cli.services.brief import BriefRequest, brief
    from pixiu_cli.services.push import last_brief, push_brief, require_channels
    from pixiu_cli.views.brief import facts_then_reply, show_cost, show_stored
    from pixiu_cli.views.push import show

    flags = set(cmd.args)
    if (
        len(flags) != len(cmd.args)
        or flags - {"--yes", "--push", "--last"}
        or ("--last" in flags) > ("--push" in flags)
    ):
        raise CommandError("用法：/brief [--yes] [--push [--last]]")
    app_, renderer = state.app, state.renderer
    if "--last" in flags:
        db = app_.store.db
        show(renderer, push_brief(db, require_channels(app_.push), last_brief(db), state.clock()))
        return

    def confirm(estimate) -> bool:
        show_cost(renderer, estimate, app_.settings)  # the line `pixiu brief` shows
        return "--yes" in flags

    request = BriefRequest(state.conversation_id, push="--push" in flags)
    done = brief(request, app_, confirm, lambda plan: facts_then_reply(renderer, plan), state.clock)
    if done.declined:
        raise CommandError("确认后输入 /brief --yes（没有调用模型）")
    state.conversation_id = done.outcome.turn.conversation_id
    show_stored(renderer, done.outcome)
    renderer.status(turn_status(state, done.outcome.turn))
    if request.push:
        show(renderer, done.deliveries, resend_hint=True)
