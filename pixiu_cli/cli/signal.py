"""`pixiu signal`: flags parsed here, the signals read by services/signals.py, output
through render.py."""

from __future__ import annotations

import math
from typing import Annotated

import typer

from pixiu_cli.cli import common
from pixiu_cli.cli.common import JsonOpt, database, stock_code

NO_SIGNAL = "无已存信号（导入或同步日线后本地计算）"


def _figure(value) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return f"{value:+.2f}"
    return "—" if value is None else "无效值"


def signal(
    codes: Annotated[list[str] | None, typer.Argument(help="股票代码（默认：全部持仓）")] = None,
    as_json: JsonOpt = False,
) -> None:
    """融合信号及其分项（趋势、动量、波动、回撤），取自已存的信号。"""
    from pixiu_cli.services.signals import stored_signals

    with database() as db:
        views = stored_signals(db, [stock_code(c) for c in codes] if codes else None)
    renderer = common.renderer()
    if as_json:
        renderer.json([view.__dict__ for view in views])
        return
    names = list(dict.fromkeys(k for view in views for k in view.components))
    rows = []
    for view in views:
        if view.as_of is None:
            rows.append([view.symbol, view.name or "—", NO_SIGNAL, "", *([""] * len(names)), "—"])
            continue
        parts = [_figure(view.components.get(k)) if k in view.components else "—" for k in names]
        rows.append([view.symbol, view.name or "—", _figure(view.score), view.direction or "—", *parts, view.as_of])
    renderer.table("融合信号（分项 −1…+1；分数为加权和）", ["代码", "名称", "融合分", "方向", *names, "日期"], rows)


def register(app: typer.Typer) -> None:
    app.command("signal")(signal)
