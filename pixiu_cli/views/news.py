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
    """done: a services.news.NewsSyncResult."""
    lines = []
    for o in done.outcomes:
        layers = "，".join(f"{layer} {n}" for layer, n in sorted(o.layers.items()))
        lines.append(f"{o.symbol}：取得 {o.fetched} 条，新增 {o.added} 条" + (f"（{layers}）" if layers else ""))
    errors = done.errors
    error = None
    if errors:
        more = f" 等 {len(errors)} 处" if len(errors) > 1 else ""
        error = f"新闻同步失败{more}：{errors[0]}；已保留本地数据，其余已取得的已保存"
    return NewsSyncReport(lines, error)
