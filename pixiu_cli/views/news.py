"""What `pixiu news`, `pixiu news sync` and `/news` show: the stored items with their layer,
source and times, and a sync's lines (one per stock, at most one error line)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from pixiu_cli.domain.news import StoredNews

COLUMNS = ["代码", "层次", "发布时间", "标题", "来源", "链接"]


@dataclass(frozen=True)
class NewsSyncReport:
    lines: list[str]
    error: str | None


def news_table(items: list[StoredNews]) -> list[list[str]]:
    return [
        [
            n.symbol or "—",
            n.layer or "—",
            (n.published_at or "")[:16].replace("T", " "),
            n.title,
            n.source or "—",
            n.url or "—",
        ]
        for n in items
    ]


def news_json(items: list[StoredNews]) -> list[dict]:
    return [asdict(n) for n in items]


def sync_report(done) -> NewsSyncReport:
    """done: a services.news.NewsSyncResult. A line per stock that got anything; a failure is
    one line for the whole sync: how many stocks, the first reason, and what was kept."""
    lines = []
    for o in done.outcomes:
        if o.errors and not o.fetched:
            continue  # said once, in the failure line
        layers = "，".join(f"{layer} {n}" for layer, n in sorted(o.layers.items()))
        lines.append(f"{o.symbol}：取得 {o.fetched} 条，新增 {o.added} 条" + (f"（{layers}）" if layers else ""))
    return NewsSyncReport(lines, _failure(done))


def _failure(done) -> str | None:
    failed = [o for o in done.outcomes if o.errors]
    if not failed:
        return None
    # each error names its stock ("600519：…"); the same cause for every stock is one reason
    reasons = list(dict.fromkeys(e.removeprefix(f"{o.symbol}：") for o in failed for e in o.errors))
    stocks = (
        f"{len(failed)} 只股票"
        if len(failed) == len(done.outcomes)
        else f"{len(done.outcomes)} 只中的 {len(failed)} 只"
    )
    more = f" 等 {len(reasons)} 种原因" if len(reasons) > 1 else ""
    kept = f"本次新增的 {done.added} 条已保存" if done.added else "本次没有新增条目"
    return f"新闻同步失败（{stocks}）：{reasons[0]}{more}；已保留本地数据，{kept}"
