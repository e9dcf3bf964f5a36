"""`pixiu alert …` and `pixiu track`: flags parsed here, the work done by services/alerts.py,
output through render.py; `pixiu profile` is declared in commands/market_data.py."""

from __future__ import annotations

from typing import Annotated

import typer

from pixiu_cli.cli import common, declared
from pixiu_cli.cli.common import JsonOpt, database, now, stock_code

alert_app = typer.Typer(
    help="价格预警：收盘价穿越、单日涨跌幅、较成本回撤（导入或同步日线后检查）。", add_completion=False
)


@alert_app.command("add")
def alert_add(
    code: Annotated[str, typer.Argument(help="股票代码")],
    below: Annotated[float | None, typer.Option("--below", help="收盘跌破该价格（元）")] = None,
    above: Annotated[float | None, typer.Option("--above", help="收盘突破该价格（元）")] = None,
    change_pct: Annotated[float | None, typer.Option("--change-pct", help="单日涨跌幅达到 N%")] = None,
    drawdown: Annotated[float | None, typer.Option("--drawdown-from-cost", help="较持仓成本回撤达到 N%")] = None,
    cooldown: Annotated[int, typer.Option("--cooldown", help="触发后静默的交易日数", min=0, max=250)] = 5,
) -> None:
    """添加一条预警规则（检查此后导入或同步的收盘价）。"""
    from pixiu_cli.services.alerts import SOURCE_BY_HAND, NewAlert, add_alert

    symbol = stock_code(code)
    given = [
        (k, v)
        for k, v in (("below", below), ("above", above), ("change_pct", change_pct), ("drawdown_from_cost", drawdown))
        if v is not None
    ]
    if len(given) != 1:
        raise common.CliError("请给出且只给出一个条件：--below、--above、--change-pct 或 --drawdown-from-cost")
    kind, threshold = given[0]
    with database() as db:
        added = add_alert(db, NewAlert(symbol, kind, threshold, SOURCE_BY_HAND, cooldown), common.stamp())
    common.renderer().info(f"已设预警 {added.ref}：{added.text}（撤销：pixiu alert remove {added.ref}）")


@alert_app.command("list")
def alert_list(as_json: JsonOpt = False) -> None:
    """列出预警规则和最近触发的预警。"""
    from pixiu_cli.services.alerts import alert_rules, describe_rule

    with database() as db:
        rules = alert_rules(db)
    renderer = common.renderer()
    if as_json:
        renderer.json([{"id": f"a{r.id}", **{k: v for k, v in r.__dict__.items() if k != "id"}} for r in rules])
    elif not rules:
        renderer.line("没有预警规则：pixiu alert add CODE --below P")
    else:
        renderer.table(
            "预警规则",
            ["编号", "条件", "冷却", "来源", "已检查到", "上次触发"],
            [
                [
                    f"a{r.id}",
                    describe_rule(r),
                    f"{r.cooldown_days} 日",
                    r.source,
                    r.checked_through or "—",
                    r.last_fired_on or "—",
                ]
                for r in rules
            ],
        )


@alert_app.command("remove")
def alert_remove(rule: Annotated[str, typer.Argument(help="预警编号，如 a3")]) -> None:
    """删除一条预警规则。"""
    from pixiu_cli.services.alerts import parse_rule_id, remove_alert

    rule_id = parse_rule_id(rule)
    if rule_id is None:
        raise common.CliError(f"预警编号应形如 a3 或 3，而不是 {rule!r}")
    with database() as db:
        removed = remove_alert(db, rule_id, common.stamp())
    if not removed:
        raise common.CliError(f"没有预警规则 a{rule_id}")
    common.renderer().info(f"已删除预警 a{rule_id}")


def track(as_json: JsonOpt = False) -> None:
    """操作决策的事后表现：5 日、20 日收益，对比不操作和该股自身走势。"""
    from pixiu_cli.analytics.record import table
    from pixiu_cli.services.analytics import track as track_record

    with database() as db:
        record = track_record(db, now())
    renderer = common.renderer()
    if as_json:
        renderer.json([row.__dict__ for row in record.rows])
        return
    if not record.rows:
        renderer.line("还没有记录的操作决策（对话中说出买卖，或在导入文件的 decisions 中提供）。")
        return
    renderer.table(*table(record))
    for line in record.summary_lines():
        renderer.line(line)


def register(app: typer.Typer) -> None:
    declared.register(app, ("profile",))
    app.add_typer(alert_app, name="alert")
    app.command("track")(track)
