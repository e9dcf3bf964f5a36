"""A terminal price chart (plotext, imported when a chart is drawn): front-adjusted close, MA20 / MA60, the
user's cost line and trade markers. Built as text; render.py prints it."""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from typing import TYPE_CHECKING

from wcwidth import wcswidth, wcwidth

from pixiu_cli.kernel.errors import UserError
from pixiu_cli.kernel.vocabulary import SIDE_NAMES, SIDES
from pixiu_cli.market.data import MarketData
from pixiu_cli.market.plausible import price_problem

if TYPE_CHECKING:
    from pixiu_cli.home.handle import InvestorStore

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


class ChartError(UserError):
    """Nothing to draw; one line for the user."""


@dataclass(frozen=True)
class TradeMark:
    date: str
    side: str  # buy | sell
    price: float  # on the chart's (adjusted) scale


@dataclass(frozen=True)
class ChartData:
    symbol: str
    name: str | None
    dates: tuple[str, ...]
    close: tuple[float, ...]
    ma20: tuple[float | None, ...]
    ma60: tuple[float | None, ...]
    cost: float | None  # real yuan, as the user recorded it
    trades: tuple[TradeMark, ...]
    cost_line: float | None = None  # the cost on the chart's (qfq) scale


def _drawable(price) -> bool:
    return isinstance(price, int | float) and not isinstance(price, bool) and price_problem(float(price)) is None


def moving_average(values: tuple[float, ...], window: int) -> tuple[float | None, ...]:
    out: list[float | None] = []
    total = 0.0
    for i, v in enumerate(values):
        total += v
        if i >= window:
            total -= values[i - window]
        out.append(total / window if i >= window - 1 else None)
    return tuple(out)


def chart_data(
    market: MarketData, domain: InvestorStore, symbol: str, days: int, cost: float | None = None
) -> ChartData:
    """cost: the holding's cost per share in today's real yuan (the account's), None when not held."""
    full = market.bars(symbol, "qfq")
    if not len(full):
        raise ChartError(f"没有 {symbol} 的行情数据：先用 pixiu data import 或 pixiu data sync")
    ma20, ma60 = moving_average(full.close, 20), moving_average(full.close, 60)
    raw = market.store.bars(symbol)
    scale = [adj / real for adj, real in zip(full.close, raw.close)]  # real price → qfq, per day
    cut = max(0, len(full) - days)
    dates = full.dates[cut:]
    trades = []
    for d in domain.recent_decisions_for(symbol, dates[0], dates[-1] + "T23:59:59", 50):
        i = bisect_left(full.dates, d.decided_at[:10])
        if i < len(full) and full.dates[i] == d.decided_at[:10] and d.side in SIDES and _drawable(d.price):
            trades.append(TradeMark(full.dates[i], d.side, d.price * scale[i]))
    cost = cost if _drawable(cost) else None  # a stored price no A-share had is not drawn
    # the account's cost is after every corporate action: on the last bar's qfq scale
    cost_line = cost * scale[-1] if cost is not None else None
    security = market.master.get(symbol)
    holding = domain.holding(symbol)
    return ChartData(
        symbol,
        security.name if security else (holding.name if holding else None),
        dates,
        full.close[cut:],
        ma20[cut:],
        ma60[cut:],
        cost,
        tuple(trades),
        cost_line,
    )


def _line(plt, xs, values, label, color):
    points = [(x, v) for x, v in zip(xs, values) if v is not None]
    if points:
        plt.plot([p[0] for p in points], [p[1] for p in points], label=label, color=color)


def render_chart(data: ChartData, *, width: int = 100, height: int = 24, color: bool = True) -> str:
    """The chart within `width` terminal cells. plotext counts a Chinese character (the
    legend) as one cell where a terminal draws two: the plot is narrowed by what overflowed
    and drawn again. The title is set above the plot here, wrapped to the width: plotext
    drops a title wider than its plot."""
    title = _title_lines(_title(data), width)
    plot_width = width
    for _ in range(4):
        text = _drawn(data, plot_width, height - len(title), color)
        over = _cells(text) - width
        if over <= 0 or plot_width - over < 20:
            break
        plot_width -= over
    return "\n".join([*title, text])


def _title(data: ChartData) -> list[str]:
    """The title's parts, joined by " · " where they fit on one line."""
    cost = f"成本 {data.cost:.2f}" if data.cost is not None else ""
    if data.cost_line is not None and abs(data.cost_line - data.cost) >= 0.005:
        cost += f"（前复权 {data.cost_line:.2f}）"
    # a stored name is data: nothing in it may act on a terminal or throw the widths off
    shown = "".join(ch if ch.isprintable() else "\ufffd" for ch in data.name or "")
    name = f"{data.symbol} {shown}" if shown else data.symbol
    parts = [name, f"{data.dates[0]} 至 {data.dates[-1]}", f"收盘 {data.close[-1]:.2f}", cost]
    return [p for p in parts if p]


def _title_lines(parts: list[str], width: int) -> list[str]:
    """The parts on as few centred lines of at most `width` cells as fit; a part wider than
    a line (a long name) is cut with an ellipsis."""
    lines: list[str] = []
    for part in (_fit(p, width) for p in parts):
        joined = f"{lines[-1]} · {part}" if lines else part
        if lines and wcswidth(joined) <= width:
            lines[-1] = joined
        else:
            lines.append(part)
    return [" " * max(0, (width - wcswidth(line)) // 2) + line for line in lines]


def _fit(text: str, width: int) -> str:
    if wcswidth(text) <= width:
        return text
    out, used = "", 1  # the ellipsis
    for ch in text:
        cells = max(wcwidth(ch), 0)
        if used + cells > width:
            break
        out, used = out + ch, used + cells
    return out + "…"


def _cells(text: str) -> int:
    return max((wcswidth(_ANSI.sub("", line)) for line in text.splitlines()), default=0)


def _drawn(data: ChartData, width: int, height: int, color: bool) -> str:
    import plotext as plt

    plt.clf()
    plt.limit_size(False, False)  # the size asked for (the renderer's terminal), not plotext's own guess
    plt.plot_size(width, height)
    plt.theme("pro" if color else "clear")
    xs = list(range(len(data.dates)))
    _line(plt, xs, data.close, "收盘(前复权)", "cyan")
    _line(plt, xs, data.ma20, "MA20", "orange")
    _line(plt, xs, data.ma60, "MA60", "magenta")
    if data.cost_line is not None:
        plt.hline(data.cost_line, "red")
    index = {d: i for i, d in enumerate(data.dates)}
    for side, marker, colour in zip(SIDES, ("B", "S"), ("green", "red")):
        marks = [t for t in data.trades if t.side == side]
        if marks:
            plt.scatter(
                [index[t.date] for t in marks],
                [t.price for t in marks],
                marker=marker,
                color=colour,
                label=SIDE_NAMES[side],
            )
    step = max(1, len(xs) // 5)
    ticks = xs[::step]
    plt.xticks(ticks, [data.dates[i] for i in ticks])
    text = plt.build()
    return text if color else _ANSI.sub("", text)


def build(market: MarketData, domain: InvestorStore, symbol: str, days: int, cost: float | None = None, **style) -> str:
    return render_chart(chart_data(market, domain, symbol, days, cost), **style)
