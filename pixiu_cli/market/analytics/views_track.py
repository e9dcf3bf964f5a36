"""What `pixiu track` and `/track` show: every recorded decision scored after 5 and 20
sessions, against not acting and against the stock itself (and 沪深300 when stored)."""

from __future__ import annotations

from pixiu_cli.kernel.render import Renderer


def _pct(v) -> str:
    return "—" if v is None else f"{v:+.1%}"


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
