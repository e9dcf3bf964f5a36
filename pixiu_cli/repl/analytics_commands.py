"""/alert and /track: the alert rules and the decision track record of `pixiu alert` and
`pixiu track`, inside the REPL; and the alerts that fired since the last session."""

from __future__ import annotations

from datetime import datetime

from pixiu_cli.domain.codes import is_finite_number, normalise_code
from pixiu_cli.repl.commands import CommandError, ParsedCommand, registry
from pixiu_cli.repl.state import ReplState

ALERT_USAGE = "/alert [add CODE --below P|--above P|--change-pct N|--drawdown-from-cost N | remove aN]"
_FLAGS = {
    "--below": "below",
    "--above": "above",
    "--change-pct": "change_pct",
    "--drawdown-from-cost": "drawdown_from_cost",
}


def _now() -> datetime:
    from pixiu_cli.market.trading_days import SHANGHAI

    return datetime.now(SHANGHAI)


def parse_alert_add(args: list[str]) -> tuple[str, str, float]:
    code = normalise_code(args[0]) if args else None
    if code is None or len(args) != 3 or args[1] not in _FLAGS:
        raise CommandError(f"用法 {ALERT_USAGE}")
    try:
        threshold = float(args[2])
    except ValueError:
        threshold = float("nan")
    if not is_finite_number(threshold) or threshold <= 0:
        raise CommandError(f"阈值应为正数，而不是 {args[2]!r}")
    return code, _FLAGS[args[1]], threshold


@registry.command("alert", "价格预警：列出、添加、删除规则", ALERT_USAGE)
def alert_command(state: ReplState, cmd: ParsedCommand) -> None:
    from pixiu_cli.analytics.rules import describe
    from pixiu_cli.store.analytics import AnalyticsStore
    from pixiu_cli.store.market import MarketStore

    db = state.app.store.db
    store = AnalyticsStore(db)
    if cmd.args and cmd.args[0] == "add":
        symbol, kind, threshold = parse_alert_add(cmd.args[1:])
        series = MarketStore(db).series([symbol])
        rule_id = store.add_rule(
            symbol=symbol,
            kind=kind,
            threshold=threshold,
            created_at=_now().isoformat(timespec="seconds"),
            source="手动",
            checked_through=series[0].last if series else None,
        )
        state.renderer.info(
            f"已设预警 a{rule_id}：{describe(kind, threshold, symbol)}（/alert remove a{rule_id} 可撤销）"
        )
        return
    if cmd.args and cmd.args[0] == "remove":
        raw = cmd.args[1].lower().removeprefix("a") if len(cmd.args) == 2 else ""
        if not (raw.isascii() and raw.isdigit()):
            raise CommandError(f"用法 {ALERT_USAGE}")
        if not store.remove_rule(int(raw), _now().isoformat(timespec="seconds")):
            raise CommandError(f"没有预警规则 a{raw}")
        state.renderer.info(f"已删除预警 a{raw}")
        return
    if cmd.args:
        raise CommandError(f"用法 {ALERT_USAGE}")
    rules = store.rules()
    if not rules:
        state.renderer.line("没有预警规则：/alert add CODE --below P")
        return
    state.renderer.table(
        "预警规则",
        ["编号", "条件", "来源", "已检查到", "上次触发"],
        [
            [
                f"a{r.id}",
                describe(r.kind, r.threshold, r.symbol),
                r.source,
                r.checked_through or "—",
                r.last_fired_on or "—",
            ]
            for r in rules
        ],
    )


@registry.command("track", "操作决策的事后表现（5 日 / 20 日，命中率、最好与最差）")
def track_command(state: ReplState, cmd: ParsedCommand) -> None:
    from pixiu_cli.analytics.record import table, track_record

    if cmd.args:
        raise CommandError("用法 /track")
    record = track_record(state.app.store.db, _now())
    if not record.rows:
        state.renderer.line("还没有记录的操作决策。")
        return
    state.renderer.table(*table(record))
    for line in record.summary_lines():
        state.renderer.line(line)


def show_new_alerts(state: ReplState) -> None:
    """Alerts fired by imports or syncs since the REPL last showed them."""
    from pixiu_cli.store.analytics import AnalyticsStore

    store = AnalyticsStore(state.app.store.db)
    fired = store.unseen_alerts()
    for alert in fired:
        state.renderer.info(f"新预警 · {alert.message}")
    store.mark_seen([a.id for a in fired], _now().isoformat(timespec="seconds"))
