"""`pixiu push test`, `pixiu schedule`, and `pixiu brief --push --last` (the newest stored
brief again). The sending is services/push.py; views/push.py says a line per channel."""

from __future__ import annotations

from typing import Annotated

import typer

from pixiu_cli.cli import common
from pixiu_cli.cli.common import JsonOpt

push_app = typer.Typer(
    help="推送渠道（config.toml 的 [push]）：企业微信、飞书、钉钉、Telegram、邮件和通用 webhook。", add_completion=False
)


@push_app.command("test")
def push_test_command(as_json: JsonOpt = False) -> None:
    """向每个已配置的推送渠道发一条测试消息，逐个说明是否送达。"""
    from pixiu_cli.services.push import push_test
    from pixiu_cli.views.push import deliveries_json, failed, show

    loaded, renderer = common.settings(), common.renderer()
    for warning in loaded.warnings:  # e.g. a config.toml with the bots' keys readable by others
        renderer.warn(warning)
    deliveries = push_test(common.configured(loaded).push, common.now(loaded))
    if as_json:
        renderer.json({"push": deliveries_json(deliveries)})
    else:
        show(renderer, deliveries)
    if failed(deliveries):
        raise typer.Exit(1)


def schedule_command(
    at: Annotated[str, typer.Option("--at", help="北京时间 HH:MM，收盘（15:00）之后")] = "15:30",
) -> None:
    """打印收盘后每个交易日运行 同步 + 简报 + 推送 的 crontab 行（及 systemd 定时器、launchd 配置）；不修改任何系统设置。"""
    from pixiu_cli.services.schedule import machine_zone, parse_at, schedule
    from pixiu_cli.views.schedule import schedule_text

    loaded = common.settings()
    planned = schedule(common.now(loaded), parse_at(at), loaded.home, machine_zone())
    renderer = common.renderer()
    renderer.raw(schedule_text(planned))
    if not common.configured(loaded).push.channels:
        renderer.warn("还没有配置推送渠道：简报会写好并保存，但不会发出（见 config.toml 的 [push]，pixiu push test）")


def resend_last(app_, renderer, as_json: bool) -> None:
    """`pixiu brief --push --last`: the newest stored brief again, no model call."""
    from pixiu_cli.services.push import last_brief, push_brief
    from pixiu_cli.views.push import deliveries_json, failed, show

    brief = last_brief(app_.store.db)
    deliveries = push_brief(app_.store.db, app_.push, brief, app_.clock())
    if as_json:
        renderer.json({"brief_id": brief.id, "report_id": brief.report_id, "push": deliveries_json(deliveries)})
    else:
        renderer.line(f"重新推送 {brief.created_at[:16].replace('T', ' ')} 的简报（report:{brief.report_id}）")
        show(renderer, deliveries)
    if failed(deliveries):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.add_typer(push_app, name="push")
    app.command("schedule")(schedule_command)
