"""The conversation layer's commands: the daily brief (`pixiu brief`, `/brief`: services/brief.py's
use case, plan → estimate → confirm → write → push) and the REPL's /retry (services/ask.py's).
The brief's confirmation is the surface's: `--yes`, else a question on the command line's
terminal, else one line saying how to confirm."""

from __future__ import annotations

import sys
from contextlib import nullcontext
from dataclasses import dataclass

from pixiu_cli.commands.declaration import CLI, REPL, Command, Nothing, lazy, option, switch
from pixiu_cli.commands.values import CommandError, Text

CLI_ONLY, REPL_ONLY = frozenset({CLI}), frozenset({REPL})
VIEWS = "pixiu_cli.brief.views"
NOT_CONFIRMED = {
    CLI: "这次简报会调用付费模型且超过设定金额：确认后加 --yes 再运行（或调高 [brief] confirm_above）",
    REPL: "确认后输入 /brief --yes（没有调用模型）",
}
RETRY_REFUSED = {
    "no_turn": "当前对话还没有可以重试的一轮",
    "complete": "第 {seq} 轮已完整回答，无需重试",
    "busy": "第 {seq} 轮正在由另一个 pixiu 进程回答，请稍后再试",
}


@dataclass(frozen=True)
class BriefCommand:
    json_out: bool
    yes: bool
    push: bool
    last: bool
    model: str | None
    offline: bool
    if_trading_day: bool


@dataclass(frozen=True)
class Briefed:
    """What the brief did: written (`done`), the last one pushed again (`resent`), or nothing
    on a closed day (`closed`: the holiday's line)."""

    done: object = None  # services/brief.py BriefResult
    resent: tuple | None = None  # (StoredBrief, deliveries)
    closed: str | None = None
    offline: bool = False
    push: bool = False
    status: object = None  # the REPL's status line figures of the brief's turn
    announce: bool = True  # the command line names the brief it pushes again
    json_out: bool = False  # one document, and still exit status 1 when not written or not pushed


def _confirm(ctx, r: BriefCommand, settings):
    """The surface's answer to a paid call over [brief] confirm_above."""
    from pixiu_cli.brief.views import show_cost

    def confirm(estimate) -> bool:
        show_cost(ctx.renderer, estimate, settings)
        if r.yes or ctx.surface == REPL:
            return r.yes
        if not sys.stdin.isatty():
            raise CommandError(NOT_CONFIRMED[CLI])
        return ctx.renderer.confirm("继续吗？")

    return confirm


def _resend(ctx, app_, r: BriefCommand, now) -> Briefed:
    from pixiu_cli.brief.push.deliver import last_brief, push_brief, require_channels

    db = app_.store.db
    config = require_channels(app_.push)
    brief = last_brief(db)
    deliveries = push_brief(db, config, brief, now)
    return Briefed(resent=(brief, deliveries), announce=ctx.surface == CLI, json_out=r.json_out)


def _brief(ctx, r: BriefCommand) -> Briefed:
    from pixiu_cli.brief.daily_brief import BriefRequest, brief
    from pixiu_cli.brief.views import facts_then_reply
    from pixiu_cli.market.commands import closed_today

    if r.last and not r.push:
        raise CommandError(f"--last 只与 --push 一起使用：{ctx.spell('brief --push --last')}")
    closed = closed_today(ctx) if r.if_trading_day else None
    if closed:
        return Briefed(closed=closed)
    state = ctx.state
    app_ = state.app if state is not None else ctx.open_app(r.model, r.offline)
    # the command line's app reads the settings of --model/--offline: its clock, not a second read
    clock = ctx.clock if state is not None else app_.clock
    if r.last:
        return _resend(ctx, app_, r, clock())

    def reply(plan):
        return nullcontext(None) if r.json_out else facts_then_reply(ctx.renderer, plan, gap=ctx.surface == CLI)

    request = BriefRequest(state.conversation_id if state is not None else None, push=r.push)
    done = brief(request, app_, _confirm(ctx, r, app_.settings), reply, clock)
    if done.declined:
        raise CommandError(NOT_CONFIRMED[REPL] if ctx.surface == REPL else "已取消，没有调用模型")
    status = None
    if state is not None:
        state.conversation_id = done.outcome.turn.conversation_id
        status = ctx.turn_status(done.outcome.turn)
    return Briefed(done=done, offline=app_.settings.offline, push=r.push, status=status, json_out=r.json_out)


def _retry(ctx, _: Nothing) -> None:
    from pixiu_cli.conversation.ask import RetryRequest, retry
    from pixiu_cli.conversation.views import retried_then_reply

    state = ctx.state
    request = RetryRequest(state.conversation_id)
    reply = lambda turn: retried_then_reply(ctx.renderer, turn)  # noqa: E731
    done = retry(request, state.app, reply, home=state.app.settings.home, now=ctx.now())
    if done.refused is not None:
        raise CommandError(RETRY_REFUSED[done.refused].format(seq=done.retried.seq if done.retried else ""))
    ctx.after_turn(done.asked)


DECLARED = (
    Command(
        ("brief",),
        "每日简报：本地算出持仓涨跌、盈亏变动、预警、信号变化、新闻和纪律风险，由模型写成简报，结论存为报告"
        "（费用超过设定金额时需加 --yes；--push 推送）。",
        (
            switch("--json", "json_out", "输出一个 JSON 文档", surfaces=CLI_ONLY),  # the view writes it: see Briefed
            switch("--yes", "yes", "费用超过 [brief] confirm_above 时不再询问", aliases=("-y",)),
            option("--model", "model", Text("M"), "模型名（覆盖 PIXIU_MODEL）", surfaces=CLI_ONLY),
            switch("--offline", "offline", "即使设置了 API key 也使用离线应答器", surfaces=CLI_ONLY),
            switch("--push", "push", "写好并保存后推送到 [push] 中的每个渠道"),
            switch("--last", "last", "与 --push 一起：重新推送最近一份已存的简报（不调用模型）", within="push"),
            switch(
                "--if-trading-day",
                "if_trading_day",
                "今天（北京时间）休市时什么也不做（定时任务用）",
                surfaces=CLI_ONLY,
            ),
        ),
        BriefCommand,
        _brief,
        lazy(f"{VIEWS}:show_briefed"),
        demo=True,
    ),
    Command(
        ("retry",),
        "重新生成上一轮中断或出错的回答（原来的部分回答保留在记录中）",
        (),
        Nothing,
        _retry,
        lazy("pixiu_cli.conversation.views:show_nothing"),
        surfaces=REPL_ONLY,
    ),
)
