"""What `pixiu alert …` and `/alert …` show: ONE table of the rules, the same columns on both
surfaces, and the confirmations (each naming the command that undoes it on that surface)."""

from __future__ import annotations

from pixiu_cli.kernel.render import Renderer

RULE_COLUMNS = ["编号", "条件", "冷却", "来源", "已检查到", "上次触发"]


def rule_rows(rules) -> list[list[str]]:
    from pixiu_cli.market.analytics.rules import describe_rule

    return [
        [
            f"a{r.id}",
            describe_rule(r),
            f"{r.cooldown_days} 日",
            r.source,
            r.checked_through or "—",
            r.last_fired_on or "—",
        ]
        for r in rules
    ]


def show_rules(renderer: Renderer, rules, spell) -> None:
    if not rules:
        renderer.line(f"没有预警规则：{spell('alert add')} CODE --below P")
        return
    renderer.table("预警规则", RULE_COLUMNS, rule_rows(rules))


def rules_record(rules) -> list[dict]:
    return [{"id": f"a{r.id}", **{k: v for k, v in r.__dict__.items() if k != "id"}} for r in rules]


def show_added(renderer: Renderer, added, spell) -> None:
    renderer.info(f"已设预警 {added.ref}：{added.text}（撤销：{spell('alert remove')} {added.ref}）")


def show_removed(renderer: Renderer, rule_id: int, spell=None) -> None:
    renderer.info(f"已删除预警 a{rule_id}")


def show_new_alerts(renderer: Renderer, fired) -> None:
    """Alerts fired by imports or syncs since the REPL last showed them."""
    for alert in fired:
        renderer.info(f"新预警 · {alert.message}")
