"""What a market-data sync says, for `pixiu data sync` and the REPL's /sync alike: a line per
series that got bars, the suspected ex-rights gaps, a line per bar or action the plausibility
gate kept out, what was recomputed, and at most one warning (the calendar) and one error (the
failure, with what was kept)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pixiu_cli.market.index_benchmarks import benchmark_for

if TYPE_CHECKING:
    from pixiu_cli.market.import_symbol import BareCode


def bare_code_line(d: BareCode) -> str:
    """How `data import` read a bare code an index shares, and how to ask for the other."""
    if d.stock is None:
        return f"{d.code} 是指数代码，已按 {d.index.name}（{d.index.key}）导入"
    return f"{d.code} 已按股票 {d.stock} 导入；导入{d.index.name}请用 --symbol {d.index.key}"


IDLE = "画像、信号、预警与操作表现都未重新计算"  # a sync that stored no bar recomputes nothing


@dataclass(frozen=True)
class SyncReport:
    lines: list[str]
    warning: str | None
    error: str | None


def suspect_line(symbol: str, gap) -> str:
    return (
        f"疑似除权除息：{symbol} {gap.date} 开盘 {gap.open:.2f}，前收 {gap.prev_close:.2f}（{gap.prev_date}），"
        f"跌幅 {gap.change:.1%} 超过涨跌幅限制，且没有对应的除权除息记录（可用 --actions 提供）"
    )


def _label(symbol: str) -> str:
    index = benchmark_for(symbol)
    return f"{index.name}（{symbol}）" if index else symbol


def sync_report(source: str, done) -> SyncReport:
    """done: a services.market.SyncResult."""
    notes = done.calendar_notes
    warning = None
    if notes:
        more = f" 等 {len(notes)} 处" if len(notes) > 3 else ""
        warning = f"交易日历与数据源不一致（以数据源为准）：{'；'.join(notes[:3])}{more}"
    lines = []
    for o in done.outcomes:
        if not o.error:
            lines.append(f"{_label(o.symbol)}：新增 {o.rows} 条" + (f"（{o.first} 至 {o.last}）" if o.rows else ""))
            lines += [suspect_line(o.symbol, gap) for gap in o.suspects]
            lines += o.refused
    lines += done.refreshed.lines() if done.refreshed else []
    if done.refreshed is None and not done.failed:
        lines.append(f"没有新的日线：{IDLE}")
    lines += _kept_and_pushed(done)
    return SyncReport(lines, warning, _failure(source, done))


def _kept_and_pushed(done) -> list[str]:
    """What the daily sync refreshed beside the bars and the alerts it pushed: their views
    (the context's figures, the push modules) load only when there is one to show."""
    lines = []
    if done.kept is not None:
        from pixiu_cli.market.fundamentals.views import kept_lines

        lines += kept_lines(done.kept)
    pushed = getattr(done, "pushed", ())
    if pushed:
        from pixiu_cli.brief.push.views import delivery_line

        lines += [f"预警{delivery_line(d)}" for d in pushed]
    return lines


def _failure(source: str, done) -> str | None:
    """One line: how many series failed, the first reason, and what was kept."""
    failed = done.failed
    if not failed:
        return None
    whole = len(failed) == len(done.outcomes)
    stocks = f"{len(failed)} 只" if whole else f"{len(done.outcomes)} 只中的 {len(failed)} 只"
    fetched = sum(o.rows for o in done.outcomes if not o.error)
    kept = "" if whole else (f"；其余新增的 {fetched} 条日线已保存" if fetched else "；其余没有新的日线")
    idle = f"；{IDLE}" if done.refreshed is None else ""
    return f"数据源 {source} 同步失败（{stocks}）：{failed[0].error}；已保留本地数据并标记为过期{kept}{idle}"


def show_report(renderer, lines, error: str | None) -> int | None:
    """A sync's lines, then its failure as an error line: 1 when there was one (the exit status)."""
    for line in lines:
        renderer.line(line)
    if error:
        renderer.error(error)
        return 1
    return None
