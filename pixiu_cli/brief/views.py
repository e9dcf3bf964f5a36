"""What `pixiu schedule` prints: the crontab line (with CRON_TZ, and in the machine's own time
for a cron without it), a systemd user timer and a launchd agent, each running the same
chain; and why each is written as it is. Nothing here is installed: the user copies one.

What a push says: one line per channel — delivered (and in how many messages, and whether
the end had to be left out), or failed with why, naming the channel — and the --json form.

What `pixiu brief` and `/brief` say around the model's prose: the cost line before a paid
call, where the brief's call can be inspected, and the stored conclusion; and the --json
document."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager
from xml.sax.saxutils import escape

from pixiu_cli.brief.daily_brief import BriefEstimate, BriefOutcome, BriefPlan
from pixiu_cli.brief.facts import BriefFacts
from pixiu_cli.brief.push.deliver import Delivery
from pixiu_cli.brief.schedule import ClosedDay, Schedule, closed_day, local_day_shift
from pixiu_cli.market.calendar import beyond_calendar
from pixiu_cli.market.review.service import review_record
from pixiu_cli.market.trading_days import PUBLICATIONS, Publication

UNIT = "pixiu-brief"
AGENT = "com.pixiu.brief"
WEEKDAY_NAMES = "一二三四五六日"


def closed_on(moment, shown) -> str | None:
    """--if-trading-day (`brief`, `data sync`): the holiday's line when the exchanges are closed
    at `moment` (Beijing time, the shipped calendar); a scheduled run then does nothing. A
    calendar note is said first, on the renderer `shown`."""
    closed = closed_day(moment)
    if closed:
        return closed_line(closed)
    beyond = beyond_calendar(moment)
    if beyond:
        shown.warn(calendar_line(beyond))
    return None


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


RESEND = "简报已保存，可用 pixiu brief --push --last 重新推送"


def delivery_line(d: Delivery) -> str:
    if not d.ok:
        kept = f"（前 {d.sent} 条已送达）" if d.sent else ""
        return f"推送到 {d.label} 失败：{d.reason}{kept}"
    notes = []
    if d.parts > 1:
        notes.append(f"内容较长，分 {d.parts} 条发送")
    if d.shortened:
        notes.append("超出长度的部分未推送")
    return f"已推送到 {d.label}" + (f"（{'；'.join(notes)}）" if notes else "")


def failed(deliveries: Sequence[Delivery]) -> list[Delivery]:
    return [d for d in deliveries if not d.ok]


def deliveries_json(deliveries: Sequence[Delivery]) -> list[dict]:
    return [
        {
            "channel": d.kind,
            "ok": d.ok,
            "parts": d.parts,
            "shortened": d.shortened,
            "sent": d.sent,
            "attempts": d.attempts,
            "error": d.reason or None,
        }
        for d in deliveries
    ]


def show(renderer, deliveries: Sequence[Delivery], resend_hint: bool = False) -> bool:
    """A line per channel; True when every channel got the message."""
    for d in deliveries:
        (renderer.info if d.ok else renderer.error)(delivery_line(d))
    if resend_hint and failed(deliveries):
        renderer.line(RESEND)
    return not failed(deliveries)


def show_test(renderer, tested, spell=None) -> int | None:
    """`pixiu push test`: a line (or a JSON entry) per channel; 1 when one failed."""
    for warning in tested.warnings:  # e.g. a config.toml with the bots' keys readable by others
        renderer.warn(warning)
    if tested.json_out:
        renderer.json({"push": deliveries_json(tested.deliveries)})
    else:
        show(renderer, tested.deliveries)
    return 1 if failed(tested.deliveries) else None


def cost_line(estimate: BriefEstimate, provider: str, model: str, limit: float) -> str:
    price = (
        f"最多约 {estimate.cost:.4f} {estimate.currency}（按未命中缓存计），超过 [brief] confirm_above = {limit:g}"
        if estimate.cost is not None
        else "该模型没有已知价格"
    )
    return (
        f"简报将调用 {provider} · {model}：预计约 {estimate.prompt_tokens:,} 输入 tokens、"
        f"{estimate.output_tokens:,} 输出 tokens，{price}"
    )


def show_cost(renderer, estimate: BriefEstimate, settings) -> None:
    """The line before a paid brief over [brief] confirm_above, on both surfaces."""
    renderer.warn(cost_line(estimate, settings.provider, settings.model, settings.brief_confirm_above))


@contextmanager
def facts_then_reply(renderer, plan: BriefPlan, *, gap: bool = False):
    """The fact section pixiu computed, then the model's brief streamed below it."""
    for line in plan.lines:
        renderer.line(line)
    if gap:
        renderer.line()
    with renderer.reply() as stream:
        yield stream


def show_stored(renderer, outcome: BriefOutcome) -> None:
    (renderer.info if outcome.report_id else renderer.error)(stored_line(outcome))


def stored_line(outcome: BriefOutcome) -> str:
    turn = outcome.turn
    if outcome.report_id is None:
        return f"简报未完成（{turn.status}），结论没有保存；可重新运行"
    return (
        f"结论已保存为报告 report:{outcome.report_id}（近期报告结论）：{(outcome.conclusion or '').rstrip('。')}；"
        f"本次调用：对话 {turn.conversation_id} 第 {turn.seq} 轮（/context {turn.seq}，"
        f"或 pixiu context --conversation {turn.conversation_id} --turn {turn.seq}）"
    )


def _facts_json(f: BriefFacts) -> dict:
    return {
        "session": f.session,
        "stale_days": f.stale_days,
        "calendar_note": f.calendar_note,
        "created_at": f.created_at,
        "since": f.since,
        "previous_brief": f.previous.created_at if f.previous else None,
        "market_value": f.market_value,
        "change": f.change,
        "change_pct": f.change_pct,
        "cash": f.cash,
        "holdings": [m.__dict__ for m in f.moves],
        "trades": [d.__dict__ for d in f.trades],
        "alerts": [a.__dict__ for a in f.alerts],
        "signal_changes": [s.__dict__ for s in f.signals],
        "news": [n.__dict__ for n in f.news],
        "market": review_record(f.market) if f.market else None,
        "rules_at_risk": [
            {
                "kind": r.rule.kind,
                "symbol": r.symbol,
                "level": r.rule.level,
                "actual": r.actual,
                "text": r.rule.text,
                "origin": r.rule.origin,
            }
            for r in f.risks
        ],
    }


def brief_json(outcome: BriefOutcome, offline: bool) -> dict:
    turn, usage = outcome.turn, outcome.turn.usage
    return {
        "as_of": outcome.plan.facts.as_of,
        "facts": _facts_json(outcome.plan.facts),
        "fact_lines": outcome.plan.lines,
        "reply": turn.reply,
        "status": turn.status,
        "error": turn.error,
        "conclusion": outcome.conclusion,
        "report_id": outcome.report_id,
        "conversation_id": turn.conversation_id,
        "turn_id": turn.turn_id,
        "turn": turn.seq,
        "offline": offline,
        "usage": {
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "cache_hit_tokens": usage.cache_hit_tokens,
            "cache_miss_tokens": usage.cache_miss_tokens,
        },
    }


def show_briefed(renderer, briefed, spell=None) -> int | None:
    """What `pixiu brief` and `/brief` leave: the holiday's line (--if-trading-day), the last
    brief pushed again (--push --last), or the stored conclusion, the REPL's status line and
    the pushes; 1 when the brief was not written or a channel did not get it."""

    if briefed.closed:
        renderer.info(f"{briefed.closed}：什么也不做（--if-trading-day）")
        return None
    if briefed.resent is not None:
        brief, deliveries = briefed.resent
        if briefed.json_out:
            renderer.json({"brief_id": brief.id, "report_id": brief.report_id, "push": deliveries_json(deliveries)})
        else:
            if briefed.announce:
                renderer.line(f"重新推送 {brief.created_at[:16].replace('T', ' ')} 的简报（report:{brief.report_id}）")
            show(renderer, deliveries)
        return 1 if failed(deliveries) else None
    done = briefed.done
    if briefed.json_out:
        pushed = {"push": deliveries_json(done.deliveries)} if briefed.push else {}
        renderer.json(brief_json(done.outcome, briefed.offline) | pushed)
    else:
        show_stored(renderer, done.outcome)
        if briefed.status is not None:
            renderer.status(briefed.status)
        if briefed.push:
            show(renderer, done.deliveries, resend_hint=True)
    return None if done.written and not failed(done.deliveries) else 1
