"""The push commands of the command line: push test (a message on every configured channel)
and schedule (the crontab line, systemd timer and launchd job of the daily sync + brief +
push). Each calls brief/push's and brief/schedule.py's use cases and shows through
brief/views.py."""

from __future__ import annotations

from dataclasses import dataclass

import click

from pixiu_cli.brief import views
from pixiu_cli.brief.push.deliver import push_test
from pixiu_cli.brief.schedule import machine_zone, parse_at
from pixiu_cli.brief.schedule import schedule as plan_schedule
from pixiu_cli.commands import common
from pixiu_cli.commands.params import Choice, Text, group, json_option
from pixiu_cli.market.source_by_name import SOURCE_NAMES
from pixiu_cli.market.trading_days import default_at, too_early

# what --at is when not given, per source (its publication time plus a margin)
DEFAULT_TIMES = "、".join(f"{name} {default_at(name):%H:%M}" for name in SOURCE_NAMES)


@dataclass(frozen=True)
class Tested:
    deliveries: list
    warnings: list
    json_out: bool


@dataclass(frozen=True)
class Planned:
    schedule: object
    has_channels: bool
    early: object = None  # the source's publication when --at comes before it


push = group("push", "推送渠道（config.toml 的 [push]）：企业微信、飞书、钉钉、Telegram、邮件和通用 webhook。")


@push.command("test", help="向每个已配置的推送渠道发一条测试消息，逐个说明是否送达。")
@json_option
def push_test_command(as_json: bool) -> None:
    loaded = common.settings()
    tested = Tested(push_test(common.configured(loaded).push, common.now(loaded)), list(loaded.warnings), as_json)
    common.finish(views.show_test(common.shown(), tested, common.spell))


@click.command(
    "schedule",
    help="打印收盘后每个交易日运行 同步 + 简报 + 推送 的 crontab 行（及 systemd 定时器、launchd 配置）；不修改任何系统设置。",
)
@click.option(
    "--at",
    type=Text("HH:MM"),
    default="",
    metavar="HH:MM",
    help=f"北京时间 HH:MM，收盘（15:00）之后（默认：数据源发布当日日线半小时后，{DEFAULT_TIMES}）",
)
@click.option(
    "--source",
    type=Choice(SOURCE_NAMES),
    default=SOURCE_NAMES[0],
    metavar="SOURCE",
    show_default=True,
    help="同步用的数据源（baostock | akshare）",
)
def schedule(at: str, source: str) -> None:
    loaded = common.settings()
    moment = parse_at(at) if at else default_at(source)
    planned = plan_schedule(common.now(loaded), moment, loaded.home, machine_zone(), source)
    shown = Planned(planned, bool(common.configured(loaded).push.channels), too_early(moment, source))
    common.finish(views.show_schedule(common.shown(), shown, common.spell))


COMMANDS = {"push": push, "schedule": schedule}
