"""The push commands: push test (a message on every configured channel) and schedule (the
crontab line, systemd timer and launchd job of the daily sync + brief + push)."""

from __future__ import annotations

from dataclasses import dataclass

from pixiu_cli.commands.declaration import CLI, Command, Group, lazy, option, switch
from pixiu_cli.commands.values import Choice, Text
from pixiu_cli.market.source_by_name import SOURCE_NAMES
from pixiu_cli.market.trading_days import default_at, too_early

# what --at is when not given, per source (its publication time plus a margin)
DEFAULT_TIMES = "、".join(f"{name} {default_at(name):%H:%M}" for name in SOURCE_NAMES)

CLI_ONLY = frozenset({CLI})
VIEWS = "pixiu_cli.brief.views"


@dataclass(frozen=True)
class TestRequest:
    json_out: bool


@dataclass(frozen=True)
class Tested:
    deliveries: list
    warnings: list
    json_out: bool


def _test(ctx, r: TestRequest) -> Tested:
    from pixiu_cli.brief.push.deliver import push_test

    loaded = ctx.settings()
    return Tested(push_test(ctx.tables().push, ctx.now()), list(loaded.warnings), r.json_out)


@dataclass(frozen=True)
class ScheduleRequest:
    at: str
    source: str


@dataclass(frozen=True)
class Planned:
    schedule: object
    has_channels: bool
    early: object = None  # the source's publication when --at comes before it


def _schedule(ctx, r: ScheduleRequest) -> Planned:
    from pixiu_cli.brief.schedule import machine_zone, parse_at, schedule

    loaded = ctx.settings()
    at = parse_at(r.at) if r.at else default_at(r.source)
    planned = schedule(ctx.now(), at, loaded.home, machine_zone(), r.source)
    return Planned(planned, bool(ctx.tables().push.channels), too_early(at, r.source))


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
        (
            option(
                "--at",
                "at",
                Text("HH:MM"),
                f"北京时间 HH:MM，收盘（15:00）之后（默认：数据源发布当日日线半小时后，{DEFAULT_TIMES}）",
                "",
            ),
            option("--source", "source", Choice(SOURCE_NAMES), "同步用的数据源（baostock | akshare）", SOURCE_NAMES[0]),
        ),
        ScheduleRequest,
        _schedule,
        lazy("pixiu_cli.brief.views:show_schedule"),
        surfaces=CLI_ONLY,
    ),
)
