"""`pixiu brief [--json] [--yes] [--push [--last]] [--if-trading-day]`: the daily brief in a
new conversation. The use case is services/brief.py's `brief` (plan, estimate, confirm, write,
push); this parses flags, asks when it is handed a paid call over [brief] confirm_above, and
renders."""

from __future__ import annotations

import sys
from contextlib import nullcontext
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
    from pixiu_cli.services.brief import BriefRequest
    from pixiu_cli.services.brief import brief as brief_use_case
    from pixiu_cli.services.push import require_channels
    from pixiu_cli.views.brief import brief_json, facts_then_reply, show_cost, show_stored
    from pixiu_cli.views.push import deliveries_json, show

    if last and not push:
        raise common.CliError("--last 只与 --push 一起使用：pixiu brief --push --last")
    if if_trading_day and common.closed_today(common.renderer()):
        return
    with common.opened(model, offline, demo, None, False) as (renderer, app_, _):
        if last:
            require_channels(app_.push)
            return resend_last(app_, renderer, as_json)

        def confirm(estimate) -> bool:
            show_cost(renderer, estimate, app_.settings)
            return _confirm(renderer, yes)

        def reply(plan):
            return nullcontext(None) if as_json else facts_then_reply(renderer, plan, gap=True)

        done = brief_use_case(BriefRequest(push=push), app_, confirm, reply, app_.clock)
        if done.declined:
            raise common.CliError("已取消，没有调用模型")
        if as_json:
            pushed = {"push": deliveries_json(done.deliveries)} if push else {}
            renderer.json(brief_json(done.outcome, app_.settings.offline) | pushed)
        else:
            show_stored(renderer, done.outcome)
            show(renderer, done.deliveries, resend_hint=True)
    if not done.written or not all(d.ok for d in done.deliveries):
        raise typer.Exit(1)


def _confirm(renderer, yes: bool) -> bool:
    if yes:
        return True
    if not sys.stdin.isatty():
        raise common.CliError(
            "这次简报会调用付费模型且超过设定金额：确认后加 --yes 再运行（或调高 [brief] confirm_above）"
        )
    return renderer.confirm("继续吗？")


def register(app: typer.Typer) -> None:
    app.command("brief")(brief)
