"""/news [CODE] and /brief [--yes] [--push [--last]]: `pixiu news` and `pixiu brief` inside the
REPL. The brief runs as a turn of the current conversation, so /context and /cache show its
call; --push sends it once stored (cli/push.py's lines), --last the newest stored one again."""

from __future__ import annotations

from pixiu_cli.domain.codes import normalise_code
from pixiu_cli.repl.commands import CommandError, ParsedCommand, registry
from pixiu_cli.repl.state import ReplState

NEWS_LIMIT = 20


NEWS_USAGE = "/news [CODE] | /news sync [CODES…]"


@registry.command(
    "news", "新闻和公告：已存的条目（含信息层次、来源、链接）；sync 从 akshare 同步（同 pixiu news sync）", NEWS_USAGE
)
def news_command(state: ReplState, cmd: ParsedCommand) -> None:
    if cmd.args[:1] == ["sync"]:
        _sync(state, [_code(arg) for arg in cmd.args[1:]])
        return
    if len(cmd.args) > 1:
        raise CommandError(f"用法：{NEWS_USAGE}")
    _list(state, _code(cmd.args[0]) if cmd.args else None)


def _code(arg: str) -> str:
    symbol = normalise_code(arg)
    if symbol is None:
        raise CommandError(f"股票代码应为 6 位数字，而不是 {arg!r}")
    return symbol


def _list(state: ReplState, symbol: str | None) -> None:
    from pixiu_cli.services.news import stored_news
    from pixiu_cli.views.news import COLUMNS, news_table

    items = stored_news(state.app.store.db, symbol, NEWS_LIMIT)
    if not items:
        state.renderer.line(f"没有已存的新闻{f'（{symbol}）' if symbol else ''}：/news sync 从 akshare 同步")
        return
    state.renderer.table(f"新闻与公告{f'：{symbol}' if symbol else ''}", COLUMNS, news_table(items))


def _sync(state: ReplState, symbols: list[str]) -> None:
    """The service `pixiu news sync` calls, on the REPL's database and clock."""
    from pixiu_cli.services.news import NewsSyncRequest, sync_news
    from pixiu_cli.views.news import sync_report

    done = sync_news(state.app.store.db, NewsSyncRequest(symbols), state.clock())
    report = sync_report(done)
    for line in report.lines:
        state.renderer.line(line)
    if report.error:
        state.renderer.error(report.error)


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
        require_channels(app_.push)
    if "--last" in flags:
        show(renderer, push_brief(db, app_.push, last_brief(db), state.clock()))
        return
    plan = plan_brief(db, state.clock(), state.app.settings.cost_method)
    if not settings.offline and "--yes" not in flags:
        guess = estimate(app_.agent, state.conversation_id, plan, app_.prices, settings.model)
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
        show(renderer, push_report(db, app_.push, outcome.report_id, state.clock()), resend_hint=True)
