"""What `pixiu profile` shows: each stock's backtest profile, its strategies side by side."""

from __future__ import annotations


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
