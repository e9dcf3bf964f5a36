"""What a market-data sync says, for `pixiu data sync` and the REPL's /sync alike: a line per
series that got bars, the suspected ex-rights gaps, a line per bar or action the plausibility
gate kept out, what was recomputed, and at most one warning (the calendar) and one error (the
failure, with what was kept).

What `pixiu data …`, `pixiu chart`, `pixiu market`, `pixiu fundamentals`, `pixiu signal`
and /sync show: the stored bars, actions and their freshness, the import and sync reports.

What `pixiu track` and `/track` show: every recorded decision scored after 5 and 20
sessions, against not acting and against the stock itself (and 沪深300 when stored).

What `pixiu profile` shows: each stock's backtest profile, its strategies side by side."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pixiu_cli.conversation.context.quoting import sessions_said
from pixiu_cli.kernel.render import Renderer
from pixiu_cli.market.bars import benchmark_for
from pixiu_cli.market.fundamentals.service import fundamentals_record as record

if TYPE_CHECKING:
    from pixiu_cli.market.importer import BareCode


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
        from pixiu_cli.brief.views import delivery_line

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


ADJUST_LABELS = {"none": "不复权", "qfq": "前复权", "hfq": "后复权"}
NO_SIGNAL = "无已存信号（导入或同步日线后本地计算）"


def actions_record(found) -> list[dict]:
    keys = ("symbol", "ex_date", "cash_per_share", "shares_per_share", "ratio", "source", "method", "fetched_at")
    return [{k: getattr(a, k) for k in keys} for a in found.actions]


def show_actions(renderer: Renderer, found, spell=None) -> None:
    if not found.actions:
        renderer.line(f"{found.symbol} 没有除权除息记录")
        return
    rows = [
        [
            a.ex_date,
            f"{a.cash_per_share:g}",
            f"{a.shares_per_share:g}",
            f"{a.ratio:.6f}" if a.ratio else "—",
            a.source,
            a.fetched_at or "—",
        ]
        for a in found.actions
    ]
    columns = ["除权除息日", "每股派现", "每股送转", "复权比例", "来源", "获取时间"]
    renderer.table(f"{found.symbol} 除权除息", columns, rows)


def bars_record(found) -> list[dict]:
    return [
        {
            "date": b.date,
            "open": round(b.open, 4),
            "high": round(b.high, 4),
            "low": round(b.low, 4),
            "close": round(b.close, 4),
            "volume": b.volume,
            "amount": b.amount,
            "adjust": found.adjust,
        }
        for b in found.bars
    ]


def show_bars(renderer: Renderer, found, spell=None) -> int | None:
    bars = found.bars
    if not bars:
        renderer.error(f"没有 {found.symbol} 在该区间的日线：先用 pixiu data import 或 pixiu data sync")
        return 1
    rows = [
        [b.date, f"{b.open:.2f}", f"{b.high:.2f}", f"{b.low:.2f}", f"{b.close:.2f}", f"{b.volume:,.0f}"] for b in bars
    ]
    title = f"{found.symbol} 日线（{ADJUST_LABELS[found.adjust]}，{len(bars)} 条）"
    renderer.table(title, ["日期", "开盘", "最高", "最低", "收盘", "成交量(股)"], rows)
    return None


def status_record(found) -> list[dict]:
    return [
        {
            "symbol": s.symbol,
            "name": s.name,
            "rows": s.rows,
            "first": s.first,
            "last": s.last,
            "source": s.source,
            "origin": s.origin,
            "adjusted": s.file_adjusted,
            "stored_as": "none",
            "last_sync": s.last_sync,
            "stale": s.stale,
            "stale_trading_days": s.stale_days,
            "calendar_note": s.calendar_note,
            "suspected_missing_actions": s.missing_actions,
            "last_error": s.last_error,
        }
        for s in found.statuses
    ]


def _freshness(s) -> str:
    behind = sessions_said("过期", s.stale_days, s.calendar_note is not None) if s.stale_days else "过期"
    fresh = "最新" if not s.stale else behind
    if s.calendar_note:
        fresh += f"（{s.calendar_note}，之后未计）"
    if s.missing_actions:
        fresh += f"；疑似缺少除权记录（{s.missing_actions} 处）"
    if s.last_error:
        fresh += f"（同步失败：{s.last_error}）"
    return fresh


def show_status(renderer: Renderer, found, spell=None) -> None:
    for line in found.notes:
        renderer.line(line)
    if not found.statuses:
        renderer.line("还没有行情数据：pixiu data import FILE.csv --symbol CODE，或 pixiu data sync")
        return
    rows = [
        [
            s.symbol,
            s.name or "—",
            str(s.rows),
            s.first or "—",
            s.last or "—",
            s.source or "—",
            f"不复权（文件 {s.file_adjusted}）" if s.file_adjusted else "不复权",
            s.last_sync or "—",
            _freshness(s),
        ]
        for s in found.statuses
    ]
    columns = ["代码", "名称", "条数", "首日", "末日", "来源", "存储", "最近同步", "新鲜度"]
    renderer.table("行情数据状态", columns, rows)


def show_imported_one(renderer: Renderer, done, spell=None) -> None:

    result, index = done.result, done.target.index
    unit = "手（已换算为股）" if result.volume_unit == "lots" else "股"
    what = f"指数 {index.name}（{index.key}）" if index else result.symbol
    renderer.info(
        f"已导入 {what}：{result.rows} 条日线，{result.first} 至 {result.last}；格式 {result.shape}，"
        f"成交量单位 {unit}" + ("。" if index else f"；除权除息 {len(result.actions)} 条。")
    )

    if done.target.decided:
        renderer.info(bare_code_line(done.target.decided))
    for gap in result.suspects:
        renderer.line(suspect_line(result.symbol, gap))
    for line in done.refreshed.lines():
        renderer.line(line)


def show_imported_many(renderer: Renderer, done, spell=None) -> None:
    rows = sum(r.rows for r in done.imported)
    renderer.info(f"已导入 {len(done.imported)} 个文件，共 {rows:,} 条日线；失败 {len(done.failed)} 个。")
    for path, why in done.failed:
        renderer.warn(f"{path.name}：{why}（该文件未写入）")

    for path, decided in done.notes:
        renderer.info(f"{path.name}：{bare_code_line(decided)}")
    for line in done.refreshed.lines() if done.refreshed else []:
        renderer.line(line)


def show_sync(renderer: Renderer, source: str, done) -> int | None:
    """A price sync's report (`pixiu data sync`, /sync, the background sync): 1 when it failed."""

    report = sync_report(source, done)
    if report.warning:
        renderer.warn(report.warning)
    return show_report(renderer, report.lines, report.error)


def show_securities(renderer: Renderer, done) -> None:
    renderer.info(
        f"证券列表已从 {done.source} 更新：{done.stocks:,} 只股票，新增 {done.added} 只，改名 {len(done.renamed)} 只"
    )
    for rename in done.renamed[:5]:
        renderer.line(f"{rename.symbol}：{rename.old} → {rename.new}（旧名保留为别名）")
    if len(done.renamed) > 5:
        renderer.line(f"…另有 {len(done.renamed) - 5} 只改名，旧名均保留为别名")


def show_fundamentals_sync(renderer: Renderer, done) -> int | None:
    from pixiu_cli.market.fundamentals.views import fundamentals_sync_lines

    return show_report(renderer, *fundamentals_sync_lines(done))


def show_data_sync(renderer: Renderer, synced, spell=None) -> int | None:
    """What `pixiu data sync` did, by what it was asked to sync."""
    if synced.kind == "closed":
        renderer.info(f"{synced.done}：什么也不做（--if-trading-day）")
        return None
    if synced.kind == "securities":
        show_securities(renderer, synced.done)
        return None
    if synced.kind == "market":
        from pixiu_cli.market.fundamentals.views import snapshot_line

        renderer.info(snapshot_line(synced.done))
        for line in synced.done.refused:
            renderer.line(line)
        return None
    if synced.kind == "fundamentals":
        return show_fundamentals_sync(renderer, synced.done)
    return show_sync(renderer, synced.source, synced.done)


def show_chart(renderer: Renderer, text: str, spell=None) -> None:
    renderer.chart(text)


def show_market(renderer: Renderer, done, spell=None) -> None:
    from pixiu_cli.market.fundamentals.views import market_lines

    renderer.line("市场概况")
    for line in market_lines(done):
        renderer.line(line)


def fundamentals_record(found) -> dict:

    return record(found.fundamentals, found.name, found.today)


def show_fundamentals(renderer: Renderer, found, spell=None) -> None:
    from pixiu_cli.market.fundamentals.views import fundamentals_view, show

    show(renderer, fundamentals_view(found.fundamentals, found.name, found.today))


def _figure(value) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return f"{value:+.2f}"
    return "—" if value is None else "无效值"


def signals_record(views) -> list[dict]:
    return [view.__dict__ for view in views]


def show_signals(renderer: Renderer, views, spell=None) -> None:
    names = list(dict.fromkeys(k for view in views for k in view.components))
    rows = []
    for view in views:
        if view.as_of is None:
            rows.append([view.symbol, view.name or "—", NO_SIGNAL, "", *([""] * len(names)), "—"])
            continue
        parts = [_figure(view.components.get(k)) if k in view.components else "—" for k in names]
        rows.append([view.symbol, view.name or "—", _figure(view.score), view.direction or "—", *parts, view.as_of])
    columns = ["代码", "名称", "融合分", "方向", *names, "日期"]
    renderer.table("融合信号（分项 −1…+1；分数为加权和）", columns, rows)


def _pct(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{value:+.{digits}%}" if digits else f"{value:.0%}"


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


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


def profile_table(renderer, rows: list, vs_index: list) -> None:
    columns = [
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
    ]
    table = [_profile_row(r) for r in rows]
    if vs_index:  # said only when 沪深300's bars are stored
        columns.insert(9, "超额沪深300")
        for line, excess in zip(table, vs_index):
            line.insert(9, _pct(excess))
    renderer.table("回测画像（★ 为前 2/3 样本内夏普最优；后 1/3 为样本外检验）", columns, table)
    if rows:
        first = rows[0]
        renderer.dim(
            f"引擎 {first.engine_version} · 数据 {first.data_source} · 成本 {first.cost_model} · "
            "夏普按日收益、无风险利率 1.5%、一年 243 个交易日年化；胜率按已平仓的完整买卖计算"
            + ("；超额 = 对比买入持有，超额沪深300 = 年化减去沪深300 同窗口年化" if vs_index else "")
        )


def profiles_record(listing) -> list[dict]:
    rows, vs_index = listing.rows, listing.vs_csi300
    extra = [{"excess_vs_csi300": v} for v in vs_index] or [{} for _ in rows]
    return [{**r.__dict__, "sample_note": "样本不足" if r.trades < 10 else None, **e} for r, e in zip(rows, extra)]


def show_profiles(renderer, listing, spell=None) -> None:
    for line in listing.refreshed:
        renderer.dim(line)
    profile_table(renderer, listing.rows, listing.vs_csi300)


def track_table(record) -> tuple[str, list[str], list[list[str]]]:
    rows = [
        [
            r.id,
            f"{r.symbol} {r.name or ''}".strip(),
            r.side_label(),
            f"{r.quantity:g} 股 @ {r.price:.2f}",
            r.decided_at[:16].replace("T", " "),
            _pct(r.return_5d),
            _pct(r.return_20d),
            _pct(r.outcome),
            _pct(r.vs_stock_20d if r.vs_stock_20d is not None else r.vs_stock_5d),
        ]
        + ([_pct(r.vs_csi300_20d if r.vs_csi300_20d is not None else r.vs_csi300_5d)] if record.benchmark else [])
        for r in record.rows
    ]
    columns = ["编号", "股票", "方向", "数量与价格", "时间", "5 日涨跌", "20 日涨跌", "结果", "对比走势"]
    title = "操作决策的事后表现（结果 = 对比不操作；对比走势 = 对比当日收盘价成交"
    if record.benchmark:  # said only when 沪深300's bars are stored
        columns.append("对比沪深300")
        title += "；对比沪深300 = 扣除同期沪深300 涨跌"
    return title + "）", columns, rows


def show_track(renderer: Renderer, record, spell=None) -> None:
    if not record.rows:
        renderer.line("还没有记录的操作决策（对话中说出买卖，或在导入文件的 decisions 中提供）。")
        return
    renderer.table(*track_table(record))
    for line in record.summary_lines():
        renderer.line(line)


def track_record(record) -> list[dict]:
    return [row.__dict__ for row in record.rows]
