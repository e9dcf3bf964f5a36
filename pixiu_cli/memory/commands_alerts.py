"""Price alerts (`alert list|add|remove`); `track` is the market's (market/commands.py)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from pixiu_cli.commands.declaration import Command, Group, Nothing, argument, lazy, option
from pixiu_cli.commands.values import CommandError, Int, Number, RuleId, StockCode

MAX_COOLDOWN_DAYS = 250  # services/alerts.py's bound, said here so `pixiu --help` need not import it
CONDITIONS = ("below", "above", "change_pct", "drawdown")


@dataclass(frozen=True)
class AlertRequest:
    symbol: str
    below: Decimal | None
    above: Decimal | None
    change_pct: Decimal | None
    drawdown: Decimal | None
    cooldown: int

    def __post_init__(self) -> None:
        if len(self.given()) != 1:
            raise CommandError("请给出且只给出一个条件：--below、--above、--change-pct 或 --drawdown-from-cost")

    def given(self) -> list[tuple[str, Decimal]]:
        kinds = {"drawdown": "drawdown_from_cost"}
        return [(kinds.get(k, k), getattr(self, k)) for k in CONDITIONS if getattr(self, k) is not None]


def _add(ctx, r: AlertRequest):
    from pixiu_cli.memory.alerts import SOURCE_BY_HAND, NewAlert, add_alert

    ((kind, threshold),) = r.given()
    return add_alert(ctx.db, NewAlert(r.symbol, kind, float(threshold), SOURCE_BY_HAND, r.cooldown), ctx.stamp())


def _rules(ctx, _: Nothing):
    from pixiu_cli.kernel.db.shared_stores import stores_of

    return stores_of(ctx.db).analytics.rules()


@dataclass(frozen=True)
class RemoveRequest:
    rule_id: int


def _remove(ctx, r: RemoveRequest) -> int:
    from pixiu_cli.kernel.db.shared_stores import stores_of

    if not stores_of(ctx.db).analytics.remove_rule(r.rule_id, ctx.stamp()):
        raise CommandError(f"没有预警规则 a{r.rule_id}")
    return r.rule_id


def _threshold(flag: str, name: str, help: str):
    return option(flag, name, Number("P" if name in ("below", "above") else "N", positive=True), help, label="阈值")


DECLARED = (
    Group(("alert",), "价格预警：收盘价穿越、单日涨跌幅、较成本回撤（导入或同步日线后检查）。", default="list"),
    Command(
        ("alert", "list"),
        "列出预警规则和最近触发的预警。",
        (),
        Nothing,
        _rules,
        lazy("pixiu_cli.memory.views:show_rules"),
        record=lazy("pixiu_cli.memory.views:rules_record"),
    ),
    Command(
        ("alert", "add"),
        "添加一条预警规则（检查此后导入或同步的收盘价）。",
        (
            argument("symbol", StockCode(), "股票代码"),
            _threshold("--below", "below", "收盘跌破该价格（元）"),
            _threshold("--above", "above", "收盘突破该价格（元）"),
            _threshold("--change-pct", "change_pct", "单日涨跌幅达到 N%"),
            _threshold("--drawdown-from-cost", "drawdown", "较持仓成本回撤达到 N%"),
            option("--cooldown", "cooldown", Int(0, MAX_COOLDOWN_DAYS, "天数"), "触发后静默的交易日数", 5),
        ),
        AlertRequest,
        _add,
        lazy("pixiu_cli.memory.views:show_added"),
    ),
    Command(
        ("alert", "remove"),
        "删除一条预警规则。",
        (argument("rule_id", RuleId(), "预警编号，如 a3"),),
        RemoveRequest,
        _remove,
        lazy("pixiu_cli.memory.views:show_removed"),
    ),
)
