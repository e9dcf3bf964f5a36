"""/news [CODE] and /brief [--yes] [--push [--last]]: `pixiu news` and `pixiu brief` inside the
REPL. The brief runs as a turn of the current conversation, so /context and /cache show its
call; --push sends it once stored (cli/push.py's lines), --last the newest stored one again."""

from __future__ import annotations

from pixiu_cli.commands.values import StockCode
from pixiu_cli.repl.commands import CommandError, ParsedCommand, registry
from pixiu_cli.repl.state import ReplState
from pixiu_cli.store.shared import stores_of

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
    return StockCode().read(arg, "股票代码")


def _list(state: ReplState, symbol: str | None) -> None:
    from pixiu_cli.views.news import COLUMNS, news_table

    items = stores_of(state.app.store.db).news.listing(symbol, NEWS_LIMIT)
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
