"""`pixiu brief [--json] [--yes] [--push [--last]] [--if-trading-day]`: the daily brief in a
new conversation. Facts and storage in services/brief.py, pushing in cli/push.py; this parses
flags, asks before a paid call over [brief] confirm_above, and renders."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from pixiu_cli.cli import common
from pixiu_cli.cli.common import JsonOpt


def brief(
    as_json: JsonOpt = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="费用超过 [brief] confirm_above 时不再询问")] = False,
    model: common.ModelOpt = None,
    offline: common.OfflineOpt = False,
    demo: common.DemoOpt = False,
    push: Annotated[bool, typer.Option("--push", help="写好并保存后推送到 [push] 中的每个渠道")] = False,
    last: Annotated[
        bool, typer.Option("--last", help="与 --push 一起：重新推送最近一份已存的简报（不调用模型）")
    ] = False,
    if_trading_day: common.IfTradingDayOpt = False,
) -> None:
    """每日简报：本地算出持仓涨跌、盈亏变动、预警、信号变化、新闻和纪律风险，由模型写成简报，结论存为报告。"""
    from pixiu_cli.cli.push import resend_last
    from pixiu_cli.services.brief import estimate, plan_brief, write_brief
    from pixiu_cli.services.conversations import start_conversation
    from pixiu_cli.services.push import push_report, require_channels
    from pixiu_cli.views.brief import brief_json, cost_line, over_budget, stored_line
    from pixiu_cli.views.push import deliveries_json, show

    if last and not push:
        raise common.CliError("--last 只与 --push 一起使用：pixiu brief --push --last")
    if if_trading_day and common.closed_today(common.renderer()):
        return
    with common.opened(model, offline, demo, None, False) as (renderer, app_, _):
        settings, db = app_.settings, app_.store.db
        if push:
            require_channels(app_.push)  # before any model call: nothing could receive it
        if last:
            return resend_last(app_, renderer, as_json)
        plan = plan_brief(db, app_.clock(), settings.cost_method)
        if not settings.offline:
            guess = estimate(app_.agent, None, plan, app_.prices, settings.model)
            limit = settings.brief_confirm_above
            if over_budget(guess, limit):
                renderer.warn(cost_line(guess, settings.provider, settings.model, limit))
                _confirm(renderer, yes)
        conversation_id = start_conversation(app_.store, settings.model)
        if as_json:
            outcome = write_brief(app_.agent, db, conversation_id, plan)
            sent = push_report(db, app_.push, outcome.report_id, app_.clock()) if push else []
            renderer.json(brief_json(outcome, settings.offline) | ({"push": deliveries_json(sent)} if push else {}))
        else:
            for line in plan.lines:
                renderer.line(line)
            renderer.line()
            with renderer.reply() as stream:
                outcome = write_brief(app_.agent, db, conversation_id, plan, stream)
            (renderer.info if outcome.report_id else renderer.error)(stored_line(outcome))
            sent = push_report(db, app_.push, outcome.report_id, app_.clock()) if push else []
            show(renderer, sent, resend_hint=True)
    if outcome.report_id is None or not all(d.ok for d in sent):
        raise typer.Exit(1)


def _confirm(renderer, yes: bool) -> None:
    if yes:
        return
    if not sys.stdin.isatty():
        raise common.CliError(
            "这次简报会调用付费模型且超过设定金额：确认后加 --yes 再运行（或调高 [brief] confirm_above）"
        )
    if not renderer.confirm("继续吗？"):
        raise common.CliError("已取消，没有调用模型")


def register(app: typer.Typer) -> None:
    app.command("brief")(brief)
