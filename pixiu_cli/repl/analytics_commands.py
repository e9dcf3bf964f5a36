"""/alert and /track: the alert rules and the decision track record of `pixiu alert` and
`pixiu track`, inside the REPL; and the alerts that fired since the last session."""

from __future__ import annotations

from pixiu_cli.analytics.rules import describe_rule
from pixiu_cli.domain.codes import is_finite_number, normalise_code
from pixiu_cli.repl.commands import CommandError, ParsedCommand, parse_number, registry
from pixiu_cli.repl.state import ReplState
from pixiu_cli.services import alerts
from pixiu_cli.store.analytics import AnalyticsStore

ALERT_USAGE = (
    "/alert [add CODE --below P|--above P|--change-pct N|--drawdown-from-cost N [--cooldown DAYS] | remove aN]"
)
_FLAGS = {
    "--below": "below",
    "--above": "above",
    "--change-pct": "change_pct",
    "--drawdown-from-cost": "drawdown_from_cost",
}


def _cooldown(args: list[str]) -> int:
    if not args:
        return alerts.DEFAULT_COOLDOWN_DAYS
    days = parse_number(args[1]) if len(args) == 2 and args[0] == "--cooldown" else None
    if days is None:
        raise CommandError(f"用法 {ALERT_USAGE}")
    if days > alerts.MAX_COOLDOWN_DAYS:
        raise CommandError(f"--cooldown 应为 0 到 {alerts.MAX_COOLDOWN_DAYS} 之间的交易日数，而不是 {days}")
    return days


def parse_alert_add(args: list[str]) -> alerts.NewAlert:
    code = normalise_code(args[0]) if args else None
    if code is None or len(args) not in (3, 5) or args[1] not in _FLAGS:
        raise CommandError(f"用法 {ALERT_USAGE}")
    try:
        threshold = float(args[2])
    except ValueError:
        threshold = float("nan")
    if not is_finite_number(threshold) or threshold <= 0:
        raise CommandError(f"阈值应为正数，而不是 {args[2]!r}")
    return alerts.NewAlert(code, _FLAGS[args[1]], threshold, alerts.SOURCE_BY_HAND, _cooldown(args[3:]))


@registry.command("alert", "价格预警：列出、添加、删除规则", ALERT_USAGE)
def alert_command(state: ReplState, cmd: ParsedCommand) -> None:
    db = state.app.store.db
    if cmd.args and cmd.args[0] == "add":
        added = alerts.add_alert(db, parse_alert_add(cmd.args[1:]), state.stamp())
        state.renderer.info(f"已设预警 {added.ref}：{added.text}（/alert remove {added.ref} 可撤销）")
        return
    if cmd.args and cmd.args[0] == "remove":
        rule_id = alerts.parse_rule_id(cmd.args[1]) if len(cmd.args) == 2 else None
        if rule_id is None:
            raise CommandError(f"用法 {ALERT_USAGE}")
        if not AnalyticsStore(db).remove_rule(rule_id, state.stamp()):
            raise CommandError(f"没有预警规则 a{rule_id}")
        state.renderer.info(f"已删除预警 a{rule_id}")
        return
    if cmd.args:
        raise CommandError(f"用法 {ALERT_USAGE}")
    _show_rules(state, AnalyticsStore(db).rules())


def _show_rules(state: ReplState, rules: list) -> None:
    if not rules:
        state.renderer.line("没有预警规则：/alert add CODE --below P")
        return
    state.renderer.table(
        "预警规则",
        ["编号", "条件", "来源", "已检查到", "上次触发"],
        [[f"a{r.id}", describe_rule(r), r.source, r.checked_through or "—", r.last_fired_on or "—"] for r in rules],
    )


@registry.command("track", "操作决策的事后表现（5 日 / 20 日，命中率、最好与最差）")
def track_command(state: ReplState, cmd: ParsedCommand) -> None:
    from pixiu_cli.analytics.record import table
    from pixiu_cli.services.analytics import track

    if cmd.args:
        raise CommandError("用法 /track")
    record = track(state.app.store.db, state.clock())
    if not record.rows:
        state.renderer.line("还没有记录的操作决策。")
        return
    state.renderer.table(*table(record))
    for line in record.summary_lines():
        state.renderer.line(line)


def show_new_alerts(state: ReplState) -> None:
    """Alerts fired by imports or syncs since the REPL last showed them."""
    for alert in alerts.take_unseen_alerts(state.app.store.db, state.stamp()):
        state.renderer.info(f"新预警 · {alert.message}")
