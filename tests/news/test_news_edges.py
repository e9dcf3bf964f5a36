"""News items a feed should never have given: dated in the future, undated (NaT), titles of a
million characters; a stock with no news at all (akshare 1.19.5 raises on its empty search
result); and `/news sync` in the REPL. Stand-ins build their frames as akshare does."""

from __future__ import annotations

import io
import json
import sys
from types import SimpleNamespace

from pixiu_cli.kernel.store.database import open_database
from tests.helpers import clean_env, cninfo_frame, news_sync, pixiu_in_process, stock_news_em_frame

NOW = "2026-11-30T16:00:00"  # a Monday, after the close


def article(time, title, url, content="正文摘要。"):
    return {"symbol": "600519", "time": time, "source": "证券时报网", "title": title, "content": content, "url": url}


REAL = article("2026-11-30 09:31:00", "贵州茅台批价企稳", "http://finance.eastmoney.com/a/1.html")


def feed(articles=(REAL,), notices=(), news=None):
    """akshare's two news functions; `news` replaces stock_news_em whole."""
    return SimpleNamespace(
        stock_news_em=news or (lambda symbol: stock_news_em_frame(list(articles))),
        stock_zh_a_disclosure_report_cninfo=lambda symbol, market, start_date, end_date: cninfo_frame(list(notices)),
    )


def stored(home):
    db = open_database(home / "pixiu.db")
    try:
        return db.execute("select title, summary, published_at from news where fetched_at is not null").fetchall()
    finally:
        db.close()


def test_future_dated_items_are_refused_and_said_and_real_ones_stay_newest(monkeypatch, home):
    fake = feed(
        [
            article("9999-12-31 23:59:59", "占位新闻甲", "http://finance.eastmoney.com/a/9.html"),
            article("2999-01-01 00:00:00", "占位新闻乙", "http://finance.eastmoney.com/a/8.html"),
            article(
                "2026-11-30 16:30:00", "盘后快讯", "http://finance.eastmoney.com/a/7.html"
            ),  # the feed's clock ahead
            REAL,
        ]
    )
    done = news_sync(monkeypatch, home, fake, "600519")
    assert done.returncode == 0, done.stderr
    assert "600519：取得 4 条，新增 2 条" in done.stdout
    assert "600519：2 条的发布时间在未来（9999-12-31、2999-01-01），未保存" in done.stdout
    assert sorted(t for t, _, _ in stored(home)) == ["盘后快讯", "贵州茅台批价企稳"]
    listed = json.loads(pixiu_in_process(clean_env(home), "news", "600519", "--json", text=True).stdout)
    assert [i["title"] for i in listed][:2] == ["盘后快讯", "贵州茅台批价企稳"]


def test_an_undated_item_is_kept_undated_not_given_the_fetch_time(monkeypatch, home):
    notice = {"symbol": "600519", "name": "贵州茅台", "title": "贵州茅台关于召开股东大会的通知", "ms": None, "id": "5"}
    done = news_sync(monkeypatch, home, feed(notices=[notice]), "600519")
    assert done.returncode == 0, done.stderr
    assert "600519：1 条没有可读的发布时间，存为日期未知" in done.stdout
    rows = {t: p for t, _, p in stored(home)}
    assert rows["贵州茅台关于召开股东大会的通知"] is None  # not 2026-11-30T16:00:00+08:00
    assert rows["贵州茅台批价企稳"] == "2026-11-30T09:31:00+08:00"
    listed = json.loads(pixiu_in_process(clean_env(home), "news", "600519", "--json", text=True).stdout)
    assert [(i["title"], i["published_at"]) for i in listed if i["fetched_at"]] == [
        ("贵州茅台批价企稳", "2026-11-30T09:31:00+08:00"),  # the undated item lists last, not as the newest
        ("贵州茅台关于召开股东大会的通知", None),
    ]
    table = pixiu_in_process(clean_env(home), "news", "600519", text=True).stdout
    assert "日期未知" in table
    # exported and imported again, it stays undated (not left out of the export, not dated)
    exported = home.parent / "export.json"
    done = pixiu_in_process(clean_env(home), "export", "-o", str(exported), text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    again = home.parent / "again"
    assert pixiu_in_process(clean_env(again), "import", str(exported)).returncode == 0
    assert {t: p for t, _, p in stored(again)}["贵州茅台关于召开股东大会的通知"] is None


def test_a_million_character_title_is_cut_to_its_bound_and_said(monkeypatch, home):
    huge = article("2026-11-30 10:00:00", "茅" * 1_000_000, "http://finance.eastmoney.com/a/2.html", "摘" * 5000)
    done = news_sync(monkeypatch, home, feed([huge]), "600519")
    assert done.returncode == 0, done.stderr
    assert "600519：1 条的标题或摘要过长，已截断（标题最多 200 字，摘要最多 1000 字）" in done.stdout
    ((title, summary, _),) = stored(home)
    assert title == "茅" * 199 + "…" and summary == "摘" * 999 + "…"  # 199 + the ellipsis = 200
    table = pixiu_in_process(clean_env(home), "news", "600519", text=True)
    assert table.returncode == 0 and len(table.stdout) < 5000


def search_news(articles):
    """stock_news_em as akshare 1.19.5 behaves after its request: a frame made from the search
    result's article list, whose `code` column is read first (to build the links). For a
    stock no article is about the list is empty, the frame has no columns, and that read
    raises KeyError('code')."""
    import pandas as pd

    def stock_news_em(symbol):
        temp_df = pd.DataFrame(articles)
        temp_df["url"] = "http://finance.eastmoney.com/a/" + temp_df["code"] + ".html"
        return temp_df

    return stock_news_em


def test_a_stock_with_no_news_is_no_news_not_a_failure(monkeypatch, home):
    done = news_sync(monkeypatch, home, feed(news=search_news([])), "600519")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.strip().splitlines() == ["600519：没有新闻"]
    # the same read failing on a result that has articles (a renamed field) is a real failure
    renamed = [{"articleCode": "1", "title": "x", "date": "2026-11-30 10:00:00"}]
    changed = news_sync(monkeypatch, home, feed(news=search_news(renamed)), "600519")
    assert changed.returncode == 1 and "KeyError" in changed.stderr and "新闻同步失败" in changed.stderr


def test_news_sync_in_the_repl_is_the_service_pixiu_news_sync_calls(monkeypatch, home):
    from pixiu_cli.app import open_app
    from pixiu_cli.kernel.render import Renderer
    from pixiu_cli.kernel.settings import load_settings
    from pixiu_cli.market.news import service as news_service
    from pixiu_cli.repl.loop import run_command
    from pixiu_cli.repl.state import ReplState

    for name, value in clean_env(home, PIXIU_NOW=NOW).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setitem(sys.modules, "akshare", feed())
    calls = []
    real = news_service.sync_news
    monkeypatch.setattr(news_service, "sync_news", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    app = open_app(load_settings(force_offline=True))
    out = io.StringIO()
    try:
        state = ReplState(app=app, renderer=Renderer(file=out, stderr=out, rich_output=False))
        run_command(state, "/news sync 600519")
        run_command(state, "/news sync 6005")
    finally:
        app.close()
    shown = out.getvalue()
    assert "600519：取得 1 条，新增 1 条（混合 1）" in shown
    assert "股票代码应为 6 位数字，而不是 '6005'" in shown
    assert [c.symbols for c in calls] == [["600519"]]  # the second was refused before any fetch
    assert [t for t, _, _ in stored(home)] == ["贵州茅台批价企稳"]
