"""/brief [--yes] [--push [--last]]: `pixiu brief` inside the REPL (/news is declared in
commands/news.py). The brief runs as a turn of the current conversation, so /context and /cache show its
call; --push sends it once stored (cli/push.py's lines), --last the newest stored one again."""

from __future__ import annotations

from pixiu_cli.repl.commands import CommandError, ParsedCommand, registry
from pixiu_cli.repl.state import ReplState


@registry.command(
    "brief",
    "每日简报：本地算出的持仓事实由模型写成简报，结论存为报告（费用超过设定金额时需加 --yes；--push 推送）",
    "/brief [--yes] [--push [--last]]",
)
def brief_command(state: ReplState, cmd: ParsedCommand) -> None:
    from pixiu_cli.repl.turn import turn_status
    from pixiu_cli.services.brief import estimate, plan_brief, write_brief
    from pixiu_cli.services.push import last_brief, push_brief, push_report, require_channels
    from pixiu_cli.views.brief import cost_line, over_budget, stored_line
    from pixiu_cli.views.push import show

    flags = set(cmd.args)
    if (
        len(flags) != len(cmd.args)
        or flags - {"--yes", "--push", "--last"}
        or ("--last" in flags) > ("--push" in flags)
    ):
        raise CommandError("用法：/brief [--yes] [--push [--last]]")
    app_, renderer = state.app, state.renderer
    settings, db = app_.settings, app_.store.db
    if "--push" in flags:
        require_channels(settings.push)
    if "--last" in flags:
        show(renderer, push_brief(db, settings.push, last_brief(db), state.clock()))
        return
    plan = plan_brief(db, state.clock(), state.app.settings.cost_method)
    if not settings.offline and "--yes" not in flags:
        guess = estimate(app_.agent, state.conversation_id, plan, settings.prices, settings.model)
        if over_budget(guess, settings.brief_confirm_above):
            renderer.line(cost_line(guess, settings.provider, settings.model, settings.brief_confirm_above))
            raise CommandError("确认后输入 /brief --yes（没有调用模型）")
    for line in plan.lines:
        renderer.line(line)
    conversation_id = state.ensure_conversation()
    with renderer.reply() as stream:
        outcome = write_brief(app_.agent, db, conversation_id, plan, stream)
    (renderer.info if outcome.report_id else renderer.error)(stored_line(outcome))
    renderer.status(turn_status(state, outcome.turn))
    if "--push" in flags:
        show(renderer, push_report(db, settings.push, outcome.report_id, state.clock()), resend_hint=True)
