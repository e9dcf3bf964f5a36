"""What `pixiu news`, `pixiu news sync` and `/news` show: the stored items with their layer,
source and times, and a sync's lines (one per stock, at most one error line)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from pixiu_cli.market.news.model import SUMMARY_LIMIT, TITLE_LIMIT, StoredNews, cut

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
            (n.published_at or "日期未知")[:16].replace("T", " "),
            cut(n.title, TITLE_LIMIT),  # bounded when stored; an older pixiu stored any length
            n.source or "—",
            n.url or "—",
        ]
        for n in items
    ]


def news_json(items: list[StoredNews]) -> list[dict]:
    return [asdict(n) for n in items]


def _screen_lines(o) -> list[str]:
    """What the sync left out or changed of one stock's items, said once each."""
    lines = []
    if o.future:
        dates = "、".join(sorted(set(o.future), reverse=True)[:2])
        lines.append(f"{o.symbol}：{len(o.future)} 条的发布时间在未来（{dates}），未保存")
    if o.undated:
        lines.append(f"{o.symbol}：{o.undated} 条没有可读的发布时间，存为日期未知")
    if o.cut:
        lines.append(
            f"{o.symbol}：{o.cut} 条的标题或摘要过长，已截断（标题最多 {TITLE_LIMIT} 字，摘要最多 {SUMMARY_LIMIT} 字）"
        )
    return lines


def _stock_line(o) -> str:
    if not o.fetched and not o.errors:  # both feeds answered, with nothing: not a failure
        return f"{o.symbol}：没有新闻"
    layers = "，".join(f"{layer} {n}" for layer, n in sorted(o.layers.items()))
    return f"{o.symbol}：取得 {o.fetched} 条，新增 {o.added} 条" + (f"（{layers}）" if layers else "")


def sync_report(done) -> NewsSyncReport:
    """done: a services.news.NewsSyncResult. A line per stock that got anything; a failure is
    one line for the whole sync: how many stocks, the first reason, and what was kept."""
    lines = []
    for o in done.outcomes:
        if o.errors and not o.fetched:
            continue  # said once, in the failure line
        lines.append(_stock_line(o))
        lines += _screen_lines(o)
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


def listed_json(listed) -> list[dict]:
    return news_json(listed.items)


def show_news(renderer, listed, spell) -> None:
    symbol = listed.symbol
    if not listed.items:
        renderer.line(f"没有已存的新闻{f'（{symbol}）' if symbol else ''}：{spell('news sync')} 从 akshare 同步")
        return
    renderer.table(f"新闻与公告{f'：{symbol}' if symbol else ''}", COLUMNS, news_table(listed.items))


def show_sync(renderer, synced, spell=None) -> int | None:
    """What `news sync` fetched (`--json`: as one document); 1 when it failed."""
    done = synced.done
    report = sync_report(done)
    from pixiu_cli.market.views import show_report

    if synced.json_out:
        outcomes = [o.__dict__ | {"errors": list(o.errors)} for o in done.outcomes]
        renderer.json({"added": done.added, "outcomes": outcomes, "error": report.error})
    return show_report(renderer, [] if synced.json_out else report.lines, report.error)
