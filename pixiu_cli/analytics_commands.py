"""`pixiu profile`, `pixiu alert …` and `pixiu track`: flags parsed here, work done in
pixiu_cli/analytics/, output through render.py. Registered on the main app by cli.py."""

from __future__ import annotations

from typing import Annotated

import typer

from pixiu_cli.errors import UserError
from pixiu_cli.market_commands import JsonOpt, _cli, _code, _db, _now

alert_app = typer.Typer(
    help="价格预警：收盘价穿越、单日涨跌幅、较成本回撤（导入或同步日线后检查）。", add_completion=False
)


def _pct(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{value:+.{digits}%}" if digits else f"{value:.0%}"


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def refresh_lines(db, symbols: list[str]) -> list[str]:
    """Recompute what depends on these symbols' bars; the summary lines to show."""
    from pixiu_cli.analytics.refresh import refresh
    from pixiu_cli.settings import load_settings

    return refresh(db, symbols, _now(), load_settings().costs).lines()


def profile(
    codes: Annotated[list[str] | None, typer.Argument(help="股票代码（默认：有日线的持仓和自选股）")] = None,
    as_json: JsonOpt = False,
    again: Annotated[bool, typer.Option("--refresh", help="重新计算（默认只在有新日线时计算）")] = False,
) -> None:
    """本地回测画像：3 年窗口、4 个策略、A 股成交规则与成本；样本内选优、样本外检验。"""
    notes, rows = _load_profiles(codes, again)
    renderer = _cli()._renderer()
    if as_json:
        renderer.json([{**r.__dict__, "sample_note": "样本不足" if r.trades < 10 else None} for r in rows])
        return
    for line in notes:
        renderer.dim(line)
    _show_profile_table(renderer, rows)


def _profile_symbols(db, market, codes: list[str] | None, with_bars: dict) -> list[str]:
    """The symbols asked for, or by default the holdings and watchlist that have bars."""
    from pixiu_cli.store.domain import DomainStore

    if codes:
        return [_code(c) for c in codes]
    return sorted(
        ({h.symbol for h in DomainStore(db).holdings()} | {s for s, _ in market.watchlist()}) & set(with_bars)
    )


def _load_profiles(codes: list[str] | None, again: bool) -> tuple[list[str], list]:
    """Recompute the stale backtests (all of them with --refresh); the refresh notes and the rows."""
    from pixiu_cli.store.analytics import AnalyticsStore
    from pixiu_cli.store.market import MarketStore

    with _db() as db:
        market = MarketStore(db)
        with_bars = {s.symbol: s.last for s in market.series()}
        wanted = _profile_symbols(db, market, codes, with_bars)
        missing = [s for s in wanted if s not in with_bars]
        if missing:
            raise UserError(f"没有 {'、'.join(missing)} 的日线：先 pixiu data import 或 pixiu data sync")
        if not wanted:
            raise UserError("没有可计算的股票：先导入持仓和日线（pixiu data import FILE.csv --symbol CODE）")
        store = AnalyticsStore(db)
        stored = {r.symbol: r.window_end for r in store.backtests(wanted)}
        stale = [s for s in wanted if again or s not in stored or stored[s] < with_bars[s]]
        notes = refresh_lines(db, stale) if stale else []
        return notes, store.backtests(wanted)


def _profile_row(r) -> list[str]:
    return [
        r.symbol,
        ("★ " if r.selected else "") + r.label,
        _pct(r.annual_return),
        _pct(r.max_drawdown),
        _num(r.sharpe),
        _pct(r.win_rate, 0) if r.win_rate is not None else "—",
        f"{r.trades}{'（样本不足）' if r.trades < 10 else ''}",
        f"{r.exposure:.0%}",
        _pct(r.excess_return),
        f"{_pct(r.out_annual_return)} / {_num(r.out_sharpe)}",
        f"{r.window_start}~{r.window_end}",
    ]


def _show_profile_table(renderer, rows: list) -> None:
    renderer.table(
        "回测画像（★ 为前 2/3 样本内夏普最优；后 1/3 为样本外检验）",
        [
            "代码",
            "策略",
            "年化",
            "最大回撤",
            "夏普",
            "胜率",
            "交易次数",
            "持仓占比",
            "超额",
            "样本外 年化/夏普",
            "窗口",
        ],
        [_profile_row(r) for r in rows],
    )
    if rows:
        first = rows[0]
        renderer.dim(
            f"引擎 {first.engine_version} · 数据 {first.data_source} · 成本 {first.cost_model} · "
            "夏普按日收益、无风险利率 1.5%、一年 243 个交易日年化；胜率按已平仓的完整买卖计算"
        )


def _rule_id(raw: str) -> int:
    text = raw.strip().lower().removeprefix("a")
    if not text.isascii() or not text.isdigit():
        raise UserError(f"预警编号应形如 a3 或 3，而不是 {raw!r}")
    return int(text)


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
    from pixiu_cli.analytics.rules import describe
    from pixiu_cli.domain.codes import is_finite_number
    from pixiu_cli.store.analytics import AnalyticsStore
    from pixiu_cli.store.market import MarketStore

    symbol = _code(code)
    given = [
        (k, v)
        for k, v in (("below", below), ("above", above), ("change_pct", change_pct), ("drawdown_from_cost", drawdown))
        if v is not None
    ]
    if len(given) != 1:
        raise UserError("请给出且只给出一个条件：--below、--above、--change-pct 或 --drawdown-from-cost")
    kind, threshold = given[0]
    if not is_finite_number(threshold) or threshold <= 0:
        raise UserError(f"阈值应为正数，而不是 {threshold}")
    now = _now()
    with _db() as db:
        # Bars already stored are history: the rule watches the closes that arrive after them.
        series = MarketStore(db).series([symbol])
        rule_id = AnalyticsStore(db).add_rule(
            symbol=symbol,
            kind=kind,
            threshold=threshold,
            cooldown_days=cooldown,
            created_at=now.isoformat(timespec="seconds"),
            source="手动",
            checked_through=series[0].last if series else None,
        )
    _cli()._renderer().info(
        f"已设预警 a{rule_id}：{describe(kind, threshold, symbol)}（撤销：pixiu alert remove a{rule_id}）"
    )


@alert_app.command("list")
def alert_list(as_json: JsonOpt = False) -> None:
    """列出预警规则和最近触发的预警。"""
    from pixiu_cli.analytics.rules import describe
    from pixiu_cli.store.analytics import AnalyticsStore

    with _db() as db:
        rules = AnalyticsStore(db).rules()
    renderer = _cli()._renderer()
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
                    describe(r.kind, r.threshold, r.symbol),
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
    from pixiu_cli.store.analytics import AnalyticsStore

    rule_id = _rule_id(rule)
    with _db() as db:
        removed = AnalyticsStore(db).remove_rule(rule_id, _now().isoformat(timespec="seconds"))
    if not removed:
        raise UserError(f"没有预警规则 a{rule_id}")
    _cli()._renderer().info(f"已删除预警 a{rule_id}")


def track(as_json: JsonOpt = False) -> None:
    """操作决策的事后表现：5 日、20 日收益，对比不操作和该股自身走势。"""
    from pixiu_cli.analytics.record import table, track_record

    with _db() as db:
        record = track_record(db, _now())
    renderer = _cli()._renderer()
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
    app.command("profile")(profile)
    app.add_typer(alert_app, name="alert")
    app.command("track")(track)
