"""The brief's facts begin with the market review, and every number in it is one of the
stored figures: the benchmarks' last two closes and the move between them, the stored
session's counts and turnover, the industry boards' moves. A brief with nothing stored says
so in one line with no figure of its own."""

from __future__ import annotations

import re
from datetime import datetime
from decimal import Decimal

from pixiu_cli.brief.daily_brief import plan_brief
from pixiu_cli.brief.handle import Brief
from pixiu_cli.market.bars import Bar, SeriesWrite
from pixiu_cli.market.calendar import SHANGHAI
from pixiu_cli.market.review.breadth import discontinued_series
from pixiu_cli.market.review.model import Breadth, IndustryMove, Snapshot
from pixiu_cli.market.review.store import MarketReviewStore
from pixiu_cli.market.store import MarketStore
from tests.helpers import FIXTURE, build_app

NOW = datetime(2026, 11, 30, 16, 0, tzinfo=SHANGHAI)
CLOSES = {"sh000300": (3900.0, 3939.0), "sh000001": (3400.0, 3383.0), "sz399006": (2100.0, 2121.0)}
BREADTH = Breadth(
    "2026-11-30",
    "2026-11-30T16:00:00+08:00",
    "akshare.stock_zh_a_spot_em",
    True,
    5102,
    3011,
    1887,
    204,
    31,
    87,
    12,
    Decimal("987654321000"),
)
BOARDS = [("BK0437", "煤炭行业", "0.032", "云煤能源", "0.1012"), ("BK0447", "互联网服务", "0.021", "信雅达", "0.0997"),
          ("BK0735", "计算机设备", "0.005", "中威电子", "0.2008"), ("BK0475", "银行", "-0.012", "成都银行", "0.018"),
          ("BK0734", "珠宝首饰", "-0.028", "曼卡龙", "0.0336")]  # fmt: skip
NUMBER = re.compile(r"[+-]?\d[\d,]*(?:\.\d+)?%?")


def store_market(db) -> None:
    for key, (before, last) in CLOSES.items():
        bars = [Bar("2026-11-27", before, before, before, before, 1e9), Bar("2026-11-30", last, last, last, last, 1e9)]
        MarketStore(db).write_series(SeriesWrite(key, bars, "baostock", "2026-11-30T16:00:00+08:00"))
    industries = tuple(
        IndustryMove(
            "2026-11-30",
            c,
            n,
            Decimal(ch),
            10,
            5,
            lead,
            Decimal(lc),
            "akshare.stock_board_industry_name_em",
            BREADTH.taken_at,
        )
        for c, n, ch, lead, lc in BOARDS
    )
    MarketReviewStore(db).write(Snapshot(BREADTH, industries))


def stored_figures() -> set[str]:
    """The figures as the brief writes them, from what was stored, by hand."""
    shown = set()
    for before, last in CLOSES.values():
        shown |= {f"{last:,.2f}", f"{before:,.2f}", f"{(last / before - 1) * 100:+.2f}%"}
    b = BREADTH
    shown |= {f"{n:,}" for n in (b.stocks, b.advancers, b.decliners, b.flat, b.suspended, b.limit_up, b.limit_down)}
    shown.add("9,876.54")  # 987,654,321,000 yuan in 亿元 (÷ 1e8), two places
    for _, _, change, _, lead in BOARDS:
        shown |= {f"{float(change) * 100:+.2f}%", f"{float(lead) * 100:+.2f}%"}
    return shown


def numbers(lines: list[str]) -> list[str]:
    text = re.sub(r"\d{4}-\d{2}-\d{2}|\d{2}:\d{2}|沪深300|\d{6}", " ", "\n".join(lines))
    return NUMBER.findall(text)


def market_lines(lines: list[str]) -> list[str]:
    start = lines.index("市场概况（各项注明日期和来源）：")
    return lines[start : lines.index("持仓：")]


def test_the_facts_begin_with_the_review_and_each_number_is_a_stored_figure(model, tmp_path):
    app = build_app(model, tmp_path / "pixiu.db", portfolio=FIXTURE, now=NOW)
    store_market(app.db)
    lines = plan_brief(Brief(app.db), NOW).lines
    header_end = next(i for i, line in enumerate(lines) if line.startswith("组合："))
    assert lines[header_end + 1] == "市场概况（各项注明日期和来源）："  # the first of the facts after the header
    shown = market_lines(lines)
    gone = [line for line in shown if line.startswith("- 北向资金净买入：")]
    assert gone == [f"- 北向资金净买入：{discontinued_series()[0].note}"]  # said, never a 0 as a flow
    figures = [line for line in shown if line not in gone]
    assert numbers(figures) and set(numbers(figures)) <= stored_figures(), set(numbers(figures)) - stored_figures()
    assert (
        "- 全市场（2026-11-30 收盘快照，来源 akshare.stock_zh_a_spot_em，5,102 只有成交）：上涨 3,011 家"
        in "\n".join(shown)
    )
    assert "成交额 9,876.54 亿元" in "\n".join(shown)


def test_with_nothing_stored_the_brief_says_so_in_one_line_without_figures(model, tmp_path):
    app = build_app(model, tmp_path / "pixiu.db", portfolio=FIXTURE, now=NOW)
    lines = plan_brief(Brief(app.db), NOW).lines
    said = [line for line in lines if line.startswith("市场概况")]
    assert len(said) == 1 and said[0].startswith("市场概况：没有已存的指数日线和全市场快照")
    assert numbers(said) == []
