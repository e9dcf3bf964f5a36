"""/chart: the terminal price chart of `pixiu chart`, inside the REPL."""

from __future__ import annotations

from pixiu_cli.commands.values import spelled_code
from pixiu_cli.repl.commands import CommandError, ParsedCommand, parse_number, registry
from pixiu_cli.repl.state import ReplState

USAGE = "/chart CODE [--days N]"


def parse_chart_args(args: list[str]) -> tuple[str, int]:
    code, days, rest = None, 250, list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "--days":
            value = parse_number(rest.pop(0)) if rest else None
            if value is None or not 5 <= value <= 5000:
                raise CommandError(f"--days 需要 5 到 5000 之间的整数：用法 {USAGE}")
            days = value
        elif code is None and spelled_code(arg):
            code = spelled_code(arg)
        else:
            raise CommandError(f"无法识别的参数 {arg}：用法 {USAGE}")
    if code is None:
        raise CommandError(f"需要 6 位股票代码：用法 {USAGE}")
    return code, days


@registry.command("chart", "走势图：前复权收盘、MA20/MA60、成本线和买卖点", USAGE)
def chart_command(state: ReplState, cmd: ParsedCommand) -> None:
    from pixiu_cli.services.market import chart

    symbol, days = parse_chart_args(cmd.args)
    text = chart(
        state.app.store.db,
        symbol,
        days,
        state.clock(),
        state.app.settings.cost_method,
        color=state.renderer.rich_output,
        **state.renderer.chart_size(),
    )
    state.renderer.chart(text)
