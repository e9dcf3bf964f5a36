"""The daily brief's facts are computed, not written by the model: every number of its fact
section is checked here against the stored bars, holdings, trades and the user's own rules,
for a first brief and for the next one (moves and P&L since the last brief). The brief is
written by the offline reading model through the real loop, and its conclusion becomes a
`reports` memory that the next conversation's 近期报告结论 shows."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta

import pytest

from pixiu_cli.brief.daily_brief import plan_brief, write_brief
from pixiu_cli.brief.handle import Brief
from pixiu_cli.market.calendar import SHANGHAI
from pixiu_cli.market.store import MarketStore
from tests.helpers import MARKET_FIXTURES, build_app, load, truncated_history

FIRST = datetime(2026, 11, 30, 16, 0, tzinfo=SHANGHAI)  # a Monday, after the close
SECOND = FIRST + timedelta(days=1)
HOLDINGS = {  # symbol → (shares, cost)
    "000333": (1000, 60.5),
    "000002": (10000, 8.0),
    "600519": (100, 1500.0),  # no bars: valued at cost for weights
}


def document(tmp_path):
    doc = {
        "holdings": [
            {"symbol": s, "name": n, "shares": sh, "cost": c, "role": r, "updated_at": "2024-01-02"}
            for (s, n, r), (sh, c) in zip(
                [("000333", "美的集团", "core"), ("000002", "万科A", "satellite"), ("600519", "贵州茅台", "core")],
                HOLDINGS.values(),
            )
        ],
        "persona": {"约束": "单只个股仓位不超过总资产的25%；卫星仓合计不超过60%"},
        "notes": [
            {"kind": "plan", "symbol": "000333", "text": "跌破 90 元止损", "days_ago": 3},
            {"kind": "plan", "symbol": "000002", "text": "回踩 7 元再加仓", "days_ago": 3},
            {"kind": "view", "symbol": "000002", "text": "跌到 1 元也不卖", "days_ago": 3},  # a view, no rule
        ],
        "decisions": [{"symbol": "000002", "side": "buy", "price": 6.7, "quantity": 1000, "reason": "试探", "days_ago": 0}],
        "alerts": [{"symbol": "000002", "rule": "跌破 7 元", "message": "万科跌破 7 元", "days_ago": 0, "time": "09:40"}],
        "signals": [
            {"symbol": "000002", "score": 0.3, "direction": "偏多", "components": {}, "days_ago": 5},
            {"symbol": "000002", "score": -0.4, "direction": "偏空", "components": {}, "days_ago": 1},
        ],
        "news": [
            {"symbol": "000333", "title": "美的集团发布回购公告", "source": "巨潮资讯", "layer": "事实", "days_ago": 0,
             "time": "08:00"}
        ],
    }  # fmt: skip
    path = tmp_path / "brief_portfolio.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture
def app(model, tmp_path):
    app = build_app(model, tmp_path / "pixiu.db", portfolio=document(tmp_path), now=FIRST)
    for code in ("000333", "000002"):
        load(app.db, code, path=truncated_history(tmp_path, code, "2025-05-23"))
    return app


def closes(db, symbol):
    series = MarketStore(db).bars(symbol)
    return dict(zip(series.dates, series.close))


NUMBER = re.compile(r"[+-]?\d[\d,]*(?:\.\d+)?%?")


def numbers(lines):
    """Every number in the fact section, dates, clock times and stock codes taken out."""
    text = "\n".join(lines)
    text = re.sub(r"\d{4}-\d{2}-\d{2}|\d{2}:\d{2}|(?<!\d)\d{6}(?!\d)|n\d+", " ", text)
    return NUMBER.findall(text)


def expected_first(db):
    """The fact section's figures, from the stored bars, holdings and rules alone."""
    c333, c002 = closes(db, "000333"), closes(db, "000002")
    now = {"000333": c333["2025-05-23"], "000002": c002["2025-05-23"]}
    ref = {"000333": c333["2025-05-22"], "000002": c002["2025-05-22"]}
    return now, ref


def figures(now, ref):
    out, values = {}, {}
    for symbol, (shares, cost) in HOLDINGS.items():
        if symbol in now:
            values[symbol] = shares * now[symbol]
        else:
            values[symbol] = shares * cost
    total = sum(values.values())
    for symbol, (shares, cost) in HOLDINGS.items():
        out[symbol] = {"value": values[symbol], "weight": values[symbol] / total}
        if symbol in now:
            change = shares * (now[symbol] - ref[symbol])
            out[symbol] |= {
                "change": change, "pct": change / (shares * ref[symbol]),
                "pnl": values[symbol] - shares * cost, "pnl_pct": (values[symbol] - shares * cost) / (shares * cost),
            }  # fmt: skip
    return out


def formatted(now, ref, fig):
    """Each figure as the brief prints it."""
    priced = [s for s in HOLDINGS if s in now]
    market = sum(fig[s]["value"] for s in priced)
    change = sum(fig[s]["change"] for s in priced)
    base = sum(HOLDINGS[s][0] * ref[s] for s in priced)
    shown = {f"{market:,.2f}", f"{change:+,.2f}", f"{change / base * 100:+.2f}%", str(len(priced)), "1",
             f"{fig['600519']['value']:,.2f}"}  # fmt: skip
    for s in HOLDINGS:
        shown.add(f"{fig[s]['value']:,.2f}")
        shown.add(f"{fig[s]['weight'] * 100:.1f}%")
        if s in now:
            shown |= {f"{now[s]:.2f}", f"{ref[s]:.2f}", f"{fig[s]['change']:+,.2f}", f"{fig[s]['pct'] * 100:+.2f}%",
                      f"{fig[s]['pnl']:+,.2f}", f"{fig[s]['pnl_pct'] * 100:+.2f}%"}  # fmt: skip
    return shown


def returns_shown(day: str = "2025-05-23", before: str = "2025-05-22") -> set[str]:
    """The account's return on the brief's day (after the session `before`) and this year, as the brief prints
    them, recomputed from the fixture closes: no cash was stated, so the stocks alone (the
    holding without bars at its cost), with no flow since the holdings were stated."""

    def close(symbol: str, day: str) -> float:
        rows = (MARKET_FIXTURES / f"{symbol}.csv").read_text().splitlines()[1:]
        return float([r for r in rows if r.split(",")[0] <= day][-1].split(",")[4])

    def value(day: str) -> float:
        return sum(HOLDINGS[s][0] * close(s, day) for s in ("000333", "000002")) + 100 * 1500.0

    shown = set()
    for base in (before, "2024-12-31"):
        shown |= {f"{(value(day) / value(base) - 1) * 100:+.2f}%", f"{value(day) - value(base):+,.2f}"}
    return shown


def test_every_number_of_the_first_brief_comes_from_the_stored_data(app):
    plan = plan_brief(Brief(app.db), FIRST)
    now, ref = expected_first(app.db)
    fig = figures(now, ref)
    lines = plan.lines
    shown = formatted(now, ref, fig)
    stale = {str(m.stale_days) for m in plan.facts.moves if m.stale_days}
    # the trade, the rules' own numbers and the weights that break them
    shown |= {"1,000", "6.70", "25.0%", "60.0%", "90.00", "7.00", "25%", "60%", "90", "7", "1"} | stale
    returned = next(x for x in lines if x.startswith("账户收益"))
    assert set(numbers([returned])) == returns_shown(), returned  # the day's and the year's, each with its profit
    assert set(numbers(lines)) <= shown | returns_shown(), set(numbers(lines)) - shown

    line = next(x for x in lines if x.startswith("- 000333 美的集团"))
    assert f"收盘 {now['000333']:.2f}（2025-05-23" in line and f"较 {ref['000333']:.2f}（2025-05-22）" in line
    assert f"盈亏变动 {fig['000333']['change']:+,.2f}" in line and f"仓位 {fig['000333']['weight'] * 100:.1f}%" in line
    assert f"浮动盈亏 {fig['000333']['pnl']:+,.2f}" in line
    assert "- 600519 贵州茅台：无行情数据；按成本计 150,000.00" in "\n".join(lines)

    risks = [
        x for x in lines[lines.index("纪律与计划风险（按你自己写下的上限、止损和计划价，对照已存收盘价）：") + 1 :]
    ]
    over = sorted(s for s in HOLDINGS if fig[s]["weight"] > 0.25)
    assert over and sorted(r.split("：")[1].split(" ")[0] for r in risks if r.startswith("- 仓位上限")) == over
    assert any(r.startswith(f"- 止损：000333 收盘 {now['000333']:.2f}，已跌破止损位 90.00") for r in risks)
    assert any(r.startswith(f"- 计划价位：000002 收盘 {now['000002']:.2f}，已回落到计划价 7.00") for r in risks)
    assert not any("1.00" in r for r in risks)  # a view's price is no rule
    satellite = fig["000002"]["weight"]
    assert any("卫星仓合计" in r for r in risks) == (satellite > 0.60)
    text = "\n".join(lines)
    assert "- 买入 000002 1,000 股 @ 6.70" in text and "「万科跌破 7 元」" in text
    assert "- 000002：偏多 → 偏空" in text and "[事实] 000333 「美的集团发布回购公告」" in text


def test_the_next_brief_measures_from_the_last_one_and_its_conclusion_is_remembered(app, tmp_path):
    first = write_brief(app.agent, Brief(app.db), app.new_conversation(), plan_brief(Brief(app.db), FIRST))
    assert first.report_id and first.turn.status == "complete" and first.conclusion
    load(app.db, "000333")  # the sessions after the first brief arrive (to 2025-05-30)
    load(app.db, "000002")
    plan = plan_brief(Brief(app.db), SECOND)
    c333, c002 = closes(app.db, "000333"), closes(app.db, "000002")
    now = {"000333": c333["2025-05-30"], "000002": c002["2025-05-30"]}
    ref = {"000333": c333["2025-05-23"], "000002": c002["2025-05-23"]}  # the first brief's closes
    fig = figures(now, ref)
    stale = {str(m.stale_days) for m in plan.facts.moves if m.stale_days}
    shown = formatted(now, ref, fig) | {"25.0%", "60.0%", "90.00", "7.00", "25%", "60%", "90", "7"} | stale
    returned = next(x for x in plan.lines if x.startswith("账户收益"))
    assert set(numbers([returned])) == returns_shown("2025-05-30", "2025-05-29"), returned
    assert set(numbers(plan.lines)) <= shown | returns_shown("2025-05-30", "2025-05-29"), (
        set(numbers(plan.lines)) - shown
    )
    text = "\n".join(plan.lines)
    assert f"较 {ref['000333']:.2f}（2025-05-23） {fig['000333']['pct'] * 100:+.2f}%" in text
    assert "上次简报 2026-11-30 16:00" in text
    assert "交易（自上次简报）：\n- 无" in text and "信号方向变化：\n- 无" in text  # nothing new since


def test_the_conclusion_is_a_report_with_date_layer_holdings_and_turn(app):
    conversation = app.new_conversation()
    outcome = write_brief(app.agent, Brief(app.db), conversation, plan_brief(Brief(app.db), FIRST))
    assert outcome.turn.reply.startswith("（离线评测模型")  # the labelled reading model wrote it
    assert outcome.conclusion in outcome.turn.reply
    row = app.db.execute(
        "select title, symbols, as_of, origin, conversation_id, turn_seq from reports where id = ?", [outcome.report_id]
    ).fetchone()
    assert row[2:] == ("2025-05-23", "brief", conversation, outcome.turn.seq)  # as of its newest bar
    assert sorted(json.loads(row[1])) == sorted(HOLDINGS)
    assert row[0].startswith("每日简报 2025-05-23 收盘（覆盖 3 只持仓")
    assert f"对话 {conversation} 第 {outcome.turn.seq} 轮" in row[0]
    # the call is an ordinary call of the conversation: /context and /cache read it
    calls = app.store.calls_for_conversation(conversation)
    assert calls and "【事实（pixiu 本地计算，不是模型生成）】" in json.dumps(calls[-1].request, ensure_ascii=False)

    later = app.new_conversation()
    request, _ = app.agent.preview(later, "最近怎么样")
    block = next(m["content"] for m in request["messages"] if m["content"].startswith("[上下文信息]"))
    section = block[block.index("## 近期报告结论") :].split("\n## ")[0]
    line = next(x for x in section.splitlines() if "每日简报" in x)
    assert line.startswith("- [混合 · 2026-11-30]") and outcome.conclusion[:20] in line


def header(plan) -> str:
    return plan.lines[1]


def test_the_brief_is_as_of_its_newest_bar_however_late_it_is_written(app):
    # written on 2026-11-30 over bars that end on 2025-05-23: never 截至 2026-11-30
    plan = plan_brief(Brief(app.db), FIRST)
    behind = {m.stale_days for m in plan.facts.moves if m.priced}
    assert len(behind) == 1 and header(plan) == f"截至 2025-05-23 收盘（行情已过期 {behind.pop()} 个交易日）"
    assert plan.facts.session == plan.facts.as_of == "2025-05-23"


def test_bars_of_the_last_closed_session_are_current(model, tmp_path):
    morning = datetime(2025, 6, 3, 10, 0, tzinfo=SHANGHAI)  # before 06-03's close; 06-02 was a holiday
    app = build_app(model, tmp_path / "pixiu.db", portfolio=document(tmp_path), now=morning)
    for code in ("000333", "000002"):
        load(app.db, code)  # through 2025-05-30, the last closed session at 10:00 on 06-03
    plan = plan_brief(Brief(app.db), morning)
    assert header(plan) == "截至 2025-05-30 收盘" and plan.facts.stale_days == 0


def test_past_the_calendar_the_count_stops_at_its_end_and_says_so(app):
    later = datetime(2027, 1, 5, 16, 0, tzinfo=SHANGHAI)  # the shipped calendar ends on 2026-12-31
    plan = plan_brief(Brief(app.db), later)
    shown = header(plan)
    assert shown.startswith("截至 2025-05-23 收盘（行情已过期至少 ") and shown.endswith("；交易日历只到 2026-12-31）")
    counted = int(shown.split("至少 ")[1].split(" ")[0])
    assert (
        counted == plan.facts.stale_days > plan_brief(Brief(app.db), FIRST).facts.stale_days
    )  # December 2026 counted too


def test_without_bars_the_brief_says_so_and_is_of_its_day(model, tmp_path):
    app = build_app(model, tmp_path / "pixiu.db", portfolio=document(tmp_path), now=FIRST)
    plan = plan_brief(Brief(app.db), FIRST)
    assert header(plan) == "截至：没有已存的行情（持仓按成本计）"
    assert plan.facts.session is None and plan.facts.as_of == "2026-11-30"
    outcome = write_brief(app.agent, Brief(app.db), app.new_conversation(), plan)
    title, as_of = app.db.execute("select title, as_of from reports where id = ?", [outcome.report_id]).fetchone()
    assert as_of == "2026-11-30" and title.startswith("每日简报 2026-11-30（无已存行情；覆盖 3 只持仓")
