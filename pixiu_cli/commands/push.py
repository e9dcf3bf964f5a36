"""The push commands: push test (a message on every configured channel) and schedule (the
crontab line, systemd timer and launchd job of the daily sync + brief + push)."""

from __future__ import annotations

from dataclasses import dataclass

from pixiu_cli.commands.declaration import CLI, Command, Group, lazy, option, switch
from pixiu_cli.commands.values import Text

CLI_ONLY = frozenset({CLI})
VIEWS = "pixiu_cli.views.push"


@dataclass(frozen=True)
class TestRequest:
    json_out: bool


@dataclass(frozen=True)
class Tested:
    deliveries: list
    warnings: list
    json_out: bool


def _test(ctx, r: TestRequest) -> Tested:
    from pixiu_cli.services.push import push_test

    loaded = ctx.settings()
    return Tested(push_test(ctx.tables().push, ctx.now()), list(loaded.warnings), r.json_out)


@dataclass(frozen=True)
class ScheduleRequest:
    at: str


@dataclass(frozen=True)
class Planned:
    schedule: object
    has_channels: bool


def _schedule(ctx, r: ScheduleRequest) -> Planned:
    from pixiu_cli.services.schedule import machine_zone, parse_at, schedule

    loaded = ctx.settings()
    planned = schedule(ctx.now(), parse_at(r.at), loaded.home, machine_zone())
    return Planned(planned, bool(ctx.tables().push.channels))


DECLARED = (
    Group(
        ("push",),
        "推送渠道（config.toml 的 [push]）：企业微信、飞书、钉钉、Telegram、邮件和通用 webhook。",
        surfaces=CLI_ONLY,
    ),
    Command(
        ("push", "test"),
        "向每个已配置的推送渠道发一条测试消息，逐个说明是否送达。",
        (switch("--json", "json_out", "输出一个 JSON 文档"),),
        TestRequest,
        _test,
        lazy(f"{VIEWS}:show_test"),
        surfaces=CLI_ONLY,
    ),
    Command(
        ("schedule",),
        "打印收盘后每个交易日运行 同步 + 简报 + 推送 的 crontab 行（及 systemd 定时器、launchd 配置）；不修改任何系统设置。",
        (option("--at", "at", Text("HH:MM"), "北京时间 HH:MM，收盘（15:00）之后", "15:30"),),
        ScheduleRequest,
        _schedule,
        lazy("pixiu_cli.views.schedule:show_schedule"),
        surfaces=CLI_ONLY,
    ),
)
