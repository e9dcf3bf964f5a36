"""/market and /fundamentals CODE: `pixiu market` and `pixiu fundamentals` inside the REPL."""

from __future__ import annotations

from pixiu_cli.repl.commands import CommandError, ParsedCommand, registry
from pixiu_cli.repl.state import ReplState


@registry.command(
    "market", "市场概况：指数涨跌、全市场涨跌家数与涨跌停、成交额、强弱行业（同 pixiu market）", "/market"
)
def market_command(state: ReplState, cmd: ParsedCommand) -> None:
    from pixiu_cli.services.market_review import review
    from pixiu_cli.views.fundamentals import market_lines

    if cmd.args:
        raise CommandError("用法：/market")
    state.renderer.line("市场概况")
    for line in market_lines(review(state.app.store.db, state.clock())):
        state.renderer.line(line)


@registry.command(
    "fundamentals",
    "一只股票已存的基本面：估值分位、财报摘要、分红、报告日（同 pixiu fundamentals）",
    "/fundamentals CODE",
)
def fundamentals_command(state: ReplState, cmd: ParsedCommand) -> None:
    from pixiu_cli.app import names_cache_dir
    from pixiu_cli.selection.names import NameSource
    from pixiu_cli.services.errors import RequestError
    from pixiu_cli.services.fundamentals import stock_fundamentals
    from pixiu_cli.services.stock_codes import resolve_stock
    from pixiu_cli.store.shared import stores_of
    from pixiu_cli.views.fundamentals import fundamentals_view, show

    if len(cmd.args) != 1:
        raise CommandError("用法：/fundamentals CODE（代码或名称）")
    db = state.app.store.db
    try:
        symbol = resolve_stock(db, cmd.args[0], names_cache_dir())
    except RequestError as exc:
        raise CommandError(str(exc)) from None
    view = fundamentals_view(
        stock_fundamentals(db, symbol), NameSource(stores_of(db).securities).security_name(symbol), state.clock().date()
    )
    show(state.renderer, view)
