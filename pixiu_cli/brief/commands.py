"""The brief's commands, the same function for `pixiu brief` and `/brief`: the daily brief
(brief/daily_brief.py's use case, plan → estimate → confirm → write → push) or the last one
pushed again. The brief's confirmation is the surface's: `--yes`, else a question on the
command line's terminal, else one line saying how to confirm. (The REPL's /retry is
conversation/commands.py's.)"""

from __future__ import annotations

import sys
from contextlib import nullcontext
from dataclasses import dataclass

import click

from pixiu_cli.brief import views
from pixiu_cli.brief.daily_brief import BriefRequest
from pixiu_cli.brief.daily_brief import brief as write_brief
from pixiu_cli.brief.push.deliver import last_brief, push_brief, require_channels
from pixiu_cli.commands import common
from pixiu_cli.commands.params import CLI, SurfaceCommand, Text, demo_option, option
from pixiu_cli.commands.values import CommandError

NOT_CONFIRMED = {
    "cli": "这次简报会调用付费模型且超过设定金额：确认后加 --yes 再运行（或调高 [brief] confirm_above）",
    "repl": "确认后输入 /brief --yes（没有调用模型）",
}


@dataclass(frozen=True)
class Briefed:
    """What the brief did: written (`done`), the last one pushed again (`resent`), or nothing
    on a closed day (`closed`: the holiday's line)."""

    done: object = None  # brief/daily_brief.py BriefResult
    resent: tuple | None = None  # (StoredBrief, deliveries)
    closed: str | None = None
    offline: bool = False
    push: bool = False
    status: object = None  # the REPL's status line figures of the brief's turn
    announce: bool = True  # the command line names the brief it pushes again
    json_out: bool = False  # one document, and still exit status 1 when not written or not pushed


def _confirm(yes: bool, settings):
    """The surface's answer to a paid call over [brief] confirm_above."""
    shown, in_repl = common.shown(), common.repl_state() is not None

    def confirm(estimate) -> bool:
        views.show_cost(shown, estimate, settings)
        if yes or in_repl:
            return yes
        if not sys.stdin.isatty():
            raise CommandError(NOT_CONFIRMED["cli"])
        return shown.confirm("继续吗？")

    return confirm


@click.command(
    "brief",
    cls=SurfaceCommand,
    help="每日简报：本地算出持仓涨跌、盈亏变动、预警、信号变化、新闻和纪律风险，由模型写成简报，结论存为报告"
    "（费用超过设定金额时需加 --yes；--push 推送）。",
)
@option(
    "--json", "json_out", is_flag=True, help="输出一个 JSON 文档", surfaces=(CLI,)
)  # the view writes it: see Briefed
@option("--yes", "-y", "yes", is_flag=True, help="费用超过 [brief] confirm_above 时不再询问")
@option("--model", type=Text("M"), metavar="M", help="模型名（覆盖 PIXIU_MODEL）", surfaces=(CLI,))
@option("--offline", is_flag=True, help="即使设置了 API key 也使用离线应答器", surfaces=(CLI,))
@option("--push", is_flag=True, help="写好并保存后推送到 [push] 中的每个渠道")
@option("--last", is_flag=True, help="与 --push 一起：重新推送最近一份已存的简报（不调用模型）", within="push")
@option("--if-trading-day", is_flag=True, help="今天（北京时间）休市时什么也不做（定时任务用）", surfaces=(CLI,))
@demo_option
def brief(json_out, yes, model, offline, push, last, if_trading_day, demo) -> None:
    common.finish(
        views.show_briefed(
            common.shown(), _brief(json_out, yes, model, offline, push, last, if_trading_day, demo), common.spell
        )
    )


def _brief(json_out, yes, model, offline, push, last, if_trading_day, demo) -> Briefed:
    ctx = click.get_current_context()
    state = common.repl_state()
    if last and not push:  # (the REPL refused it as its usage line: cli/params.py SurfaceCommand)
        raise CommandError(f"--last 只与 --push 一起使用：{common.spell('brief --push --last')}")
    shown = common.shown()
    now = state.clock if state is not None else common.now
    closed = views.closed_on(now(), shown) if if_trading_day else None
    if closed:
        return Briefed(closed=closed)
    if state is not None:
        app_, clock = state.app, state.clock
    else:
        # the command line's app reads the settings of --model/--offline: its clock, not a second read
        app_ = ctx.find_root().with_resource(common.opened(model, offline, demo, None, False, shown=shown))[1]
        clock = app_.clock
    if last:
        config = require_channels(app_.push)
        stored = last_brief(app_.brief)
        deliveries = push_brief(app_.brief, config, stored, clock())
        return Briefed(resent=(stored, deliveries), announce=state is None, json_out=json_out)

    def reply(plan):
        return nullcontext(None) if json_out else views.facts_then_reply(shown, plan, gap=state is None)

    request = BriefRequest(state.conversation_id if state is not None else None, push=push)
    done = write_brief(request, app_, _confirm(yes, app_.settings), reply, clock)
    if done.declined:
        raise CommandError(NOT_CONFIRMED["repl"] if state is not None else "已取消，没有调用模型")
    status = None
    if state is not None:
        from pixiu_cli.repl.turn import turn_status  # the REPL's status line: loaded with the REPL

        state.conversation_id = done.outcome.turn.conversation_id
        status = turn_status(state, done.outcome.turn)
    return Briefed(done=done, offline=app_.settings.offline, push=push, status=status, json_out=json_out)


COMMANDS = {"brief": brief}
