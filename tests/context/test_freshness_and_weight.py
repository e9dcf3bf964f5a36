"""Old data looks old (every item dated, stale items marked and listed last, limits from
[context]) and the budget keeps what matters most (rules, plans and alerts last; positions
by weight, the rest summed up in one line)."""

from __future__ import annotations

from datetime import timedelta

from pixiu_cli.conversation.context.builder import ContextBuilder
from pixiu_cli.conversation.context.memory_classes import MemoryLimits
from pixiu_cli.conversation.store import ConversationStore
from pixiu_cli.conversation.tokenizer.counts import count_tokens
from pixiu_cli.home.model import Alert, DomainData, Holding, MemoryEvent, NewsItem, Profile, Signal
from pixiu_cli.home.store import InvestorStore
from pixiu_cli.kernel.store.database import open_database
from tests.helpers import NOW


def stamp(days: float) -> str:
    return (NOW - timedelta(days=days)).isoformat(timespec="seconds")


def build(tmp_path, data: DomainData, question: str, **limits):
    db = open_database(tmp_path / "p.db")
    domain = InvestorStore(db)
    domain.replace_all(data)
    builder = ContextBuilder(ConversationStore(db), domain, MemoryLimits(**limits), clock=lambda: NOW)
    return builder.context_block(question, now=NOW)[0]


def item_lines(block, key: str) -> list[str]:
    section = next(s for s in block.sections if s.key == key)
    return [item.render() for item in section.items]


def test_old_profile_is_marked_and_every_item_carries_a_date(tmp_path):
    data = DomainData(
        holdings=[Holding("600519", "贵州茅台", ("茅台",), 100, 1500.0, "core")],  # no updated_at
        profiles=[Profile(0, "600519", "均线", None, 0.1, -0.2, 0.5, 0.9, "core", "稳", "2024-01-02T15:00:00+08:00")],
        signals=[Signal(0, "600519", 0.3, "偏多", {}, stamp(12))],  # 12 calendar days: > 5 trading days
        news=[
            NewsItem(0, "600519", "旧闻", None, None, None, stamp(10)),
            NewsItem(0, "600519", "新闻", None, None, None, stamp(1)),
        ],
        persona={"risk_label": "稳健型"},
        read_at=(NOW - timedelta(days=2)).isoformat(),  # the persona is stamped when its document was read
    )
    block = build(tmp_path, data, "茅台怎么样")
    lines = item_lines(block, "symbol:600519")
    profile = next(line for line in lines if "回测画像" in line)
    assert "[逻辑工具 · 2024-01-02]" in profile
    # 2024-01-02 + 90 days = 2024-04-01; NOW is 2026-11-24
    assert f"（已过期 {(NOW.date() - profile_expiry()).days} 天）" in profile
    assert "已过期" in next(line for line in lines if "融合信号" in line)
    assert "[事实 · 日期未知] 持仓关联" in next(line for line in lines if "持仓关联" in line)
    old, new = next(line for line in lines if "旧闻" in line), next(line for line in lines if "新闻" in line)
    assert "已过期 3 天" in old and "已过期" not in new  # news: 7 days
    # stale items come after every fresh one of the section
    stale = [i for i, line in enumerate(lines) if "已过期" in line]
    fresh = [i for i, line in enumerate(lines) if "已过期" not in line]
    assert stale and min(stale) > max(fresh)
    # every item of every section shows a date (the persona's is when it was written)
    for section in block.sections:
        for item in section.items:
            if section.key not in ("scene", "time") and not item.text.startswith("数据库中没有"):
                assert item.as_of, (section.key, item)
    assert item_lines(block, "persona")[0].startswith(f"- [事实 · {(NOW - timedelta(days=2)).date()}] ")


def profile_expiry():
    from datetime import date

    return date(2024, 1, 2) + timedelta(days=90)


def test_freshness_limits_come_from_the_context_settings(tmp_path):
    data = DomainData(
        holdings=[Holding("600519", "贵州茅台", ("茅台",), 100, 1500.0, "core", stamp(40))],
        profiles=[Profile(0, "600519", "均线", None, 0.1, -0.2, 0.5, 0.9, "core", "稳", stamp(40))],
    )
    assert "已过期" not in "\n".join(item_lines(build(tmp_path / "a", data, "茅台怎么样"), "symbol:600519"))
    tight = build(tmp_path / "b", data, "茅台怎么样", profiles_fresh_days=30, holdings_fresh_days=10)
    lines = item_lines(tight, "symbol:600519")
    assert "已过期 10 天" in next(line for line in lines if "回测画像" in line)
    assert "已过期 30 天" in next(line for line in lines if "持仓关联" in line)
    assert MemoryLimits.from_mapping({"signals_fresh_trading_days": 3}).rule("signals").trading


def test_stale_signal_counts_trading_days(tmp_path):
    # NOW is Tuesday 2026-11-24; a signal of Tuesday 2026-11-17 is 5 trading days old: still fresh
    data = DomainData(
        holdings=[Holding("600519", "贵州茅台", ("茅台",), 100, 1500.0, "core", stamp(1))],
        signals=[Signal(0, "600519", 0.3, None, {}, stamp(7))],
    )
    assert "已过期" not in "\n".join(item_lines(build(tmp_path / "a", data, "茅台怎么样"), "symbol:600519"))
    data = DomainData(holdings=data.holdings, signals=[Signal(0, "600519", 0.3, None, {}, stamp(8))])
    assert "已过期 1 个交易日" in "\n".join(item_lines(build(tmp_path / "b", data, "茅台怎么样"), "symbol:600519"))
    # a limit in trading days is overdue in trading days, not calendar days: a signal 540
    # calendar days old (2025-06-02) is about 360 sessions past its 5-session limit
    data = DomainData(holdings=data.holdings, signals=[Signal(0, "600519", 0.3, None, {}, stamp(540))])
    line = next(
        line for line in item_lines(build(tmp_path / "c", data, "茅台怎么样"), "symbol:600519") if "融合信号" in line
    )
    overdue = int(line.split("已过期 ")[1].split(" 个交易日")[0])
    assert 340 <= overdue <= 380 and "天" not in line.split("已过期")[1]


def big_portfolio(count: int = 500) -> DomainData:
    holdings = [
        Holding(f"{600000 + i:06d}", f"测试{i}号", (), 100.0 * (1 + i % 7), 10.0 + i, "satellite", stamp(1))
        for i in range(count)
    ]
    profiles = [Profile(0, h.symbol, "均线", None, 0.1, -0.2, 0.5, 0.9, "core", "回撤可控", stamp(3)) for h in holdings]
    notes = [
        MemoryEvent(0, "user_note", "rule", None, "单只仓位不超过 25%", stamp(2), "user"),
        MemoryEvent(0, "user_note", "plan", "600001", "跌破 10 元加仓", stamp(1), "user"),
    ]
    alerts = [Alert(0, "600003", "跌破年线", "触及年线", stamp(0.1))]
    return DomainData(
        holdings=holdings, profiles=profiles, notes=notes, alerts=alerts, persona={"risk_label": "稳健型"}
    )


def test_a_500_holding_portfolio_question_keeps_rules_alerts_and_the_largest_positions(tmp_path):
    data = big_portfolio()
    block = build(tmp_path, data, "我的持仓组合怎么样")
    assert block.tokens == count_tokens(block.text) <= 3000
    keys = {s.key for s in block.sections}
    assert {"notes", "alerts", "persona"} <= keys and "notes" not in block.omitted and "alerts" not in block.omitted
    assert (
        "「单只仓位不超过 25%」" in block.text and "「跌破 10 元加仓」" in block.text and "「触及年线」" in block.text
    )
    overview = next(s for s in block.sections if s.key == "portfolio_profiles")
    kept = [item.text.split()[0] for item in overview.items]
    weight = {h.symbol: h.shares * h.cost for h in data.holdings}
    expected = sorted(weight, key=lambda s: -weight[s])[: len(kept)]
    assert kept == expected and 5 < len(kept) < 500
    rest = 500 - len(kept)
    assert overview.rest_text.startswith(f"其余 {rest} 只：合计约占组合 ")
    assert f"- 其余 {rest} 只：" in block.text


def test_prices_weight_by_market_value(tmp_path):
    from pixiu_cli.conversation.context.memory_classes import position_weight

    h = Holding("600519", "贵州茅台", (), 100, 1500.0, "core")
    assert position_weight(h, {}) == 150_000 and position_weight(h, {"600519": 1400.0}) == 140_000
    assert position_weight(Holding("1", "x", (), float("nan"), 1.0, "core"), {}) == 0


def test_the_system_prompt_says_how_to_treat_stale_and_undated_items():
    from pixiu_cli.conversation.context.builder import system_prompt

    prompt = system_prompt()
    assert "（已过期 N 天）" in prompt and "日期未知" in prompt and "不能当作当前状态" in prompt
    assert "其余 N 只" in prompt


def test_a_price_source_reorders_positions_by_market_value(tmp_path):
    data = DomainData(
        holdings=[
            Holding("600519", "贵州茅台", ("茅台",), 100, 1500.0, "core", stamp(1)),
            Holding("002415", "海康威视", ("海康",), 1000, 30.0, "satellite", stamp(1)),
        ]
    )
    db = open_database(tmp_path / "p.db")
    domain = InvestorStore(db)
    domain.replace_all(data)
    by_cost = ContextBuilder(ConversationStore(db), domain, MemoryLimits(), clock=lambda: NOW)
    assert item_lines(by_cost.context_block("你好", now=NOW)[0], "holdings")[0].find("600519") > 0
    by_price = ContextBuilder(
        ConversationStore(db), domain, MemoryLimits(), clock=lambda: NOW, prices=lambda: {"002415": 400.0}
    )  # 400,000 > 150,000
    assert item_lines(by_price.context_block("你好", now=NOW)[0], "holdings")[0].find("002415") > 0
