"""What `pixiu schedule` prints: the crontab line (with CRON_TZ, and in the machine's own time
for a cron without it), a systemd user timer and a launchd agent, each running the same
chain; and why each is written as it is. Nothing here is installed: the user copies one."""

from __future__ import annotations

from xml.sax.saxutils import escape

from pixiu_cli.brief.schedule import ClosedDay, Schedule, local_day_shift
from pixiu_cli.market.publication import PUBLICATIONS, Publication

UNIT = "pixiu-brief"
AGENT = "com.pixiu.brief"
WEEKDAY_NAMES = "一二三四五六日"


def closed_line(c: ClosedDay) -> str:
    """Why a run on a closed day does nothing (--if-trading-day)."""
    if c.weekend:
        return f"今天 {c.day}（周{WEEKDAY_NAMES[c.day.weekday()]}）休市"
    return f"今天 {c.day}（{c.holiday or '节假日'}）休市"


def calendar_line(beyond: str) -> str:
    """A weekday past the shipped calendar is run, and says why."""
    return f"{beyond}，无法确认今天是否交易日，按交易日运行"


def _hm(s: Schedule) -> str:
    return f"{s.at.hour:02d}:{s.at.minute:02d}"


def _published(p: Publication) -> str:
    return f"约 {p.at:%H:%M}" if p.at else "无发布时间"


def intro(s: Schedule) -> list[str]:
    published = PUBLICATIONS[s.source]
    return [
        f"# 每个交易日北京时间 {_hm(s)}：同步行情（pixiu data sync --source {s.source}）→ 写简报并推送（pixiu brief --push）。",
        f"# {s.source} 发布当日日线：{_published(published)}（{published.basis}）。",
        "# 两步都带 --if-trading-day：按内置交易日历（北京时间）判断，休市日什么也不做、不调用模型、退出码 0。",
        "# pixiu 不会修改你的 crontab 或系统设置：选下面一种，复制到对应位置。",
        "# 定时任务不继承 shell 的环境变量：API key 和推送密钥放在 config.toml（chmod 600）。",
        "# 付费模型的预计费用超过 [brief] confirm_above 时，定时运行不会询问，而是不调用模型并报错。",
        f"# 输出追加到 {s.log}。",
    ]


def cron_lines(s: Schedule) -> list[str]:
    h, m = s.at.hour, s.at.minute
    local = s.local
    shift = local_day_shift(s)
    when = {0: "同一天", -1: "前一天", 1: "后一天"}.get(shift, f"{shift:+d} 天")
    lines = [
        "",
        "## crontab（crontab -e）：支持 CRON_TZ 的 cron（如 cronie）按北京时间触发。",
        "# CRON_TZ 对它之后的每一行都生效：放在 crontab 的最后。",
        "CRON_TZ=Asia/Shanghai",
        f"{m} {h} * * 1-5 {s.shell()}",
        "",
        f"## 不支持 CRON_TZ 的 cron（如 Debian/Ubuntu 的 cron）：按本机时区 {s.local_zone} 写，",
        f"# 北京时间 {_hm(s)} 是本机的 {local:%H:%M}（{when}）；每天触发，由 --if-trading-day 跳过休市日。",
    ]
    if s.shifts:
        lines.append(f"# 注意：{s.local_zone} 有夏令时，换季后本机时间会差一小时，届时按 pixiu schedule 重新生成。")
    lines.append(f"{local.minute} {local.hour} * * * {s.shell()}")
    return lines


def _systemd_arg(text: str) -> str:
    return f'"{text}"' if any(c in text for c in ' "\\') else text


def systemd_lines(s: Schedule) -> list[str]:
    h, m = s.at.hour, s.at.minute
    execs = [" ".join(_systemd_arg(a) for a in argv) for argv in s.commands]
    return [
        "",
        f"## systemd 用户定时器：~/.config/systemd/user/{UNIT}.service",
        "[Unit]",
        "Description=pixiu: sync, brief and push after the close",
        "[Service]",
        "Type=oneshot",
        f"Environment={_systemd_arg('PIXIU_HOME=' + str(s.home))}",
        f"ExecStart=-{execs[0]}",  # '-': a failed sync still lets the brief run
        f"ExecStart={execs[1]}",
        "",
        f"## ~/.config/systemd/user/{UNIT}.timer（OnCalendar 带时区，按北京时间触发）",
        "[Unit]",
        "Description=pixiu daily brief after the close (Beijing time)",
        "[Timer]",
        f"OnCalendar=Mon..Fri *-*-* {h:02d}:{m:02d}:00 Asia/Shanghai",
        "[Install]",
        "WantedBy=timers.target",
        "",
        f"# systemctl --user daemon-reload && systemctl --user enable --now {UNIT}.timer",
        "# 未登录时也要运行：loginctl enable-linger $USER",
    ]


def launchd_lines(s: Schedule) -> list[str]:
    local = s.local
    shift = "" if not s.shifts else f"（{s.local_zone} 有夏令时：换季后请重新生成）"
    return [
        "",
        f"## launchd（macOS）：~/Library/LaunchAgents/{AGENT}.plist，按本机时间 {local:%H:%M} 每天触发{shift}",
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
        '<plist version="1.0"><dict>',
        f"  <key>Label</key><string>{AGENT}</string>",
        "  <key>ProgramArguments</key><array><string>/bin/sh</string><string>-c</string>"
        f"<string>{escape(s.shell())}</string></array>",
        "  <key>StartCalendarInterval</key><dict>"
        f"<key>Hour</key><integer>{local.hour}</integer><key>Minute</key><integer>{local.minute}</integer></dict>",
        "</dict></plist>",
        f"# launchctl bootstrap gui/$(id -u) ~/Library/LaunchAgents/{AGENT}.plist",
    ]


def schedule_text(s: Schedule) -> str:
    return "\n".join([*intro(s), *cron_lines(s), *systemd_lines(s), *launchd_lines(s)]) + "\n"


def early_line(s: Schedule, p: Publication) -> str:
    """An --at before the source publishes the day's bars: allowed, and said."""
    return (
        f"--at {_hm(s)} 早于 {p.source} 发布当日日线的时间（{_published(p)}）："
        "同步多半取不到当天的收盘价，简报会用前一交易日的数据"
    )


def show_schedule(renderer, planned, spell=None) -> None:
    renderer.raw(schedule_text(planned.schedule))
    if planned.early is not None:
        renderer.warn(early_line(planned.schedule, planned.early))
    if not planned.has_channels:
        renderer.warn("还没有配置推送渠道：简报会写好并保存，但不会发出（见 config.toml 的 [push]，pixiu push test）")
