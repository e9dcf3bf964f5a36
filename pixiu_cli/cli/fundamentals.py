"""`pixiu fundamentals CODE [--json]` and `pixiu market [--json]`: what is stored, shown with
its dates and sources (fetched by `pixiu data sync --fundamentals` / `--market`); the use
cases in services/fundamentals.py and services/market_review.py, output through render.py."""

from __future__ import annotations

from typing import Annotated

import typer

from pixiu_cli.cli import common
from pixiu_cli.cli.common import JsonOpt, database, now, stock_code


def fundamentals(code: Annotated[str, typer.Argument(help="股票代码或名称")], as_json: JsonOpt = False) -> None:
    """一只股票已存的基本面：估值（PE/PB 在自身历史中的分位）、最近的财报摘要、分红和报告日，均注明报告期和来源。"""
    from pixiu_cli.selection.names import NameSource
    from pixiu_cli.services.fundamentals import fundamentals_record, stock_fundamentals
    from pixiu_cli.store.shared import stores_of
    from pixiu_cli.views.fundamentals import fundamentals_view, show

    symbol = stock_code(code)
    today = now().date()
    with database() as db:
        f = stock_fundamentals(db, symbol)
        name = NameSource(stores_of(db).securities).security_name(symbol)
    renderer = common.renderer()
    if as_json:
        renderer.json(fundamentals_record(f, name, today))
        return
    show(renderer, fundamentals_view(f, name, today))


def market(as_json: JsonOpt = False) -> None:
    """市场概况：指数基准的收盘与涨跌、全市场涨跌家数与涨跌停、成交额、最强和最弱的行业，均注明日期和来源。"""
    from pixiu_cli.services.market_review import review, review_record
    from pixiu_cli.views.fundamentals import market_lines

    with database() as db:
        done = review(db, now())
    renderer = common.renderer()
    if as_json:
        renderer.json(review_record(done))
        return
    renderer.line("市场概况")
    for line in market_lines(done):
        renderer.line(line)


def register(app: typer.Typer) -> None:
    app.command("fundamentals")(fundamentals)
    app.command("market")(market)
