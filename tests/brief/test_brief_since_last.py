"""Two briefs on one afternoon, end to end (`pixiu brief --json` at pinned times): each is as
of its newest stored bar and says how many sessions that is behind; each lists every alert
found since the brief before it, in firing order — also those a later import dated at
closes older than that brief; and the rules the user wrote as rule notes and plans (no
persona here) are checked against the valuation's weights and the stored closes. Every
figure is worked out by hand from the fixture closes below.

    000333 美的集团 2,000 shares at cost 70.00      000002 万科A 5,000 shares at cost 7.00
           05-21 78.80   05-22 79.36   05-23 78.89          05-22 6.67   05-23 6.63
           05-26 78.27   05-27 78.48   05-28 79.32          05-29 6.70   05-30 6.64
           05-29 78.98   05-30 79.06
    cash 9,600.00 (pixiu cash set). 2025-06-02 was the Dragon Boat Festival, 06-03 a session.
"""

from __future__ import annotations

import json

import pytest

from tests.helpers import MARKET_FIXTURES, clean_env, pixiu_in_process, truncated_history

DOCUMENT = {
    "holdings": [
        {"symbol": "000333", "name": "美的集团", "shares": 2000, "cost": 70.0, "role": "core", "updated_at": "2025-05-01"},
        {"symbol": "000002", "name": "万科A", "shares": 5000, "cost": 7.0, "role": "satellite", "updated_at": "2025-05-01"},
    ],
    "notes": [
        {"kind": "rule", "text": "单只个股仓位不超过总资产的25%", "created_at": "2025-04-01T09:00"},
        {"kind": "rule", "symbol": "000333", "text": "跌破 80 元止损", "created_at": "2025-04-01T09:05"},
        {"kind": "plan", "symbol": "000002", "text": "回踩 6.65 元再加仓", "created_at": "2025-05-20T20:00"},
        {"kind": "view", "symbol": "000002", "text": "跌到 1 元也不卖", "created_at": "2025-05-20T20:05"},
    ],
}  # fmt: skip

HOLDINGS_AT = {
    # weights of 157,780 + 33,150 + 9,600 = 200,530.00: 157,780 / 200,530 = 78.68% → 78.7%,
    # 33,150 / 200,530 = 16.53% → 16.5%. P&L: 157,780 − 140,000 = +17,780.00 (+12.70%),
    # 33,150 − 35,000 = −1,850.00 (−5.29%). Moves: −940 / 158,720 = −0.59%, −200 / 33,350 = −0.60%
    "first": [
        "- 000333 美的集团：收盘 78.89（2025-05-23，落后 6 个交易日），较 79.36（2025-05-22） -0.59%，"
        "盈亏变动 -940.00；市值 157,780.00，仓位 78.7%，浮动盈亏 +17,780.00（+12.70%）",
        "- 000002 万科A：收盘 6.63（2025-05-23，落后 6 个交易日），较 6.67（2025-05-22） -0.60%，"
        "盈亏变动 -200.00；市值 33,150.00，仓位 16.5%，浮动盈亏 -1,850.00（-5.29%）",
    ],
    # of 158,120 + 33,200 + 9,600 = 200,920.00: 78.70% and 16.52%; P&L 158,120 − 140,000 =
    # +18,120.00 (+12.94%), 33,200 − 35,000 = −1,800.00 (−5.14%); measured from the first
    # brief's closes: +340 / 157,780 = +0.22%, +50 / 33,150 = +0.15%
    "second": [
        "- 000333 美的集团：收盘 79.06（2025-05-30，落后 1 个交易日），较 78.89（2025-05-23） +0.22%，"
        "盈亏变动 +340.00；市值 158,120.00，仓位 78.7%，浮动盈亏 +18,120.00（+12.94%）",
        "- 000002 万科A：收盘 6.64（2025-05-30，落后 1 个交易日），较 6.63（2025-05-23） +0.15%，"
        "盈亏变动 +50.00；市值 33,200.00，仓位 16.5%，浮动盈亏 -1,800.00（-5.14%）",
    ],
}
RISKS = "纪律与计划风险（按你自己写下的上限、止损和计划价，对照已存收盘价）："


def at_risk(midea: str, vanke: str) -> list[str]:
    """The three written rules, all broken: 78.7% over the 25% cap, the close under 80, 万科 at or under 6.65."""
    return [
        f"- 止损：000333 收盘 {midea}，已跌破止损位 80.00（笔记 n2：「跌破 80 元止损」）",
        "- 仓位上限：000333 仓位 78.7%，超过上限 25.0%（笔记 n1：「单只个股仓位不超过总资产的25%」）",
        f"- 计划价位：000002 收盘 {vanke}，已回落到计划价 6.65（笔记 n3：「回踩 6.65 元再加仓」）",
    ]


def run(env, at: str, *args: str):
    done = pixiu_in_process(dict(env, PIXIU_NOW=at), *args, text=True)
    assert done.returncode == 0, done.stderr
    return done


def bars_through(env, tmp_path, at: str, day: str | None) -> None:
    for code in ("000333", "000002"):
        path = truncated_history(tmp_path, code, day) if day else MARKET_FIXTURES / f"{code}.csv"
        run(env, at, "data", "import", str(path), "--symbol", code)


def facts(env, at: str) -> dict:
    return json.loads(run(env, at, "brief", "--json").stdout)


def section(lines: list[str], title: str) -> list[str]:
    start = lines.index(title) + 1
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("- ")), len(lines))
    return lines[start:end]


def test_two_briefs_as_of_their_bars_with_every_alert_found_and_the_written_rules(tmp_path):
    doc = tmp_path / "portfolio.json"
    doc.write_text(json.dumps(DOCUMENT, ensure_ascii=False), encoding="utf-8")
    env, at = clean_env(tmp_path / "home"), "2025-06-03T15:30"
    run(env, at, "import", str(doc))
    run(env, at, "cash", "set", "9600", "--date", "2025-05-21")
    bars_through(env, tmp_path, at, "2025-05-21")
    run(env, at, "alert", "add", "000333", "--above", "79", "--cooldown", "0")
    bars_through(env, tmp_path, at, "2025-05-23")  # 05-22 closes at 79.36 over 79 (from 78.80): fires

    first = facts(env, "2025-06-03T16:00")
    lines = first["fact_lines"]
    # sessions closed after 05-23 by 06-03 16:00: 05-26, 05-27, 05-28, 05-29, 05-30, 06-03 = 6
    assert lines[1:4] == [
        "截至 2025-05-23 收盘（行情已过期 6 个交易日）",
        "生成于 2025-06-03 16:00；首份简报：按上一根日线比较，交易、预警和新闻看近 1 天",
        # 2,000 × 78.89 = 157,780.00; 5,000 × 6.63 = 33,150.00; together 190,930.00
        # change: 2,000 × (78.89 − 79.36) = −940.00, 5,000 × (6.63 − 6.67) = −200.00: −1,140.00
        # of 2,000 × 79.36 + 5,000 × 6.67 = 192,070.00: −0.5935% → −0.59%
        "组合：有行情的持仓 2 只，市值 190,930.00，较参考收盘 -1,140.00（-0.59%）；现金 9,600.00（2025-05-21 余额 9,600.00）",
    ]
    assert section(lines, "持仓：") == HOLDINGS_AT["first"]
    # the first brief looks back a day for alerts found: the one found at 15:30 fired at 05-22's close
    alerts = section(lines, "预警（自上次简报，按触发时间）：")
    assert len(alerts) == 1 and alerts[0].startswith("- 000333 「") and alerts[0].endswith("（2025-05-22 15:00）")
    assert "2025-05-22 收盘 79.36 元（当日 +0.71%）" in alerts[0]  # 79.36 / 78.80 − 1 = +0.71%
    assert section(lines, RISKS) == at_risk("78.89", "6.63")  # the view's 1 元 is no rule
    assert first["facts"]["session"] == "2025-05-23" and first["facts"]["stale_days"] == 6
    assert first["as_of"] == "2025-05-23"

    run(env, "2025-06-03T16:30", "alert", "add", "000002", "--below", "6.65", "--cooldown", "0")
    # the rest of May arrives after the first brief:
    bars_through(env, tmp_path, "2025-06-03T17:00", None)  # 000333 crosses 79 on 05-28 and 05-30, 000002 6.65 on 05-30

    second = facts(env, "2025-06-03T18:00")
    lines = second["fact_lines"]
    assert lines[1:4] == [
        "截至 2025-05-30 收盘（行情已过期 1 个交易日）",  # 06-03 closed at 15:00
        "生成于 2025-06-03 18:00；上次简报 2025-06-03 16:00",
        # 2,000 × 79.06 = 158,120.00 and 5,000 × 6.64 = 33,200.00: 191,320.00; measured from the
        # first brief's closes: +340.00 and +50.00 = +390.00 of 190,930.00: +0.20%
        "组合：有行情的持仓 2 只，市值 191,320.00，较参考收盘 +390.00（+0.20%）；现金 9,600.00（2025-05-21 余额 9,600.00）",
    ]
    assert section(lines, "持仓：") == HOLDINGS_AT["second"]
    # every alert found since 16:00 though each fired at a close before it, oldest first;
    # not the one the first brief listed
    alerts = section(lines, "预警（自上次简报，按触发时间）：")
    assert [(a.split(" ")[1], a[-18:]) for a in alerts] == [
        ("000333", "（2025-05-28 15:00）"),
        ("000333", "（2025-05-30 15:00）"),
        ("000002", "（2025-05-30 15:00）"),
    ]
    assert "2025-05-28 收盘 79.32 元（当日 +1.07%）" in alerts[0]  # 79.32 / 78.48 − 1
    assert "2025-05-30 收盘 79.06 元（当日 +0.10%）" in alerts[1]  # 79.06 / 78.98 − 1
    assert "2025-05-30 收盘 6.64 元（当日 -0.90%）" in alerts[2]  # 6.64 / 6.70 − 1
    assert section(lines, RISKS) == at_risk("79.06", "6.64")
    assert [r["actual"] for r in second["facts"]["rules_at_risk"]] == pytest.approx([79.06, 158_120 / 200_920, 6.64])
    assert second["as_of"] == "2025-05-30"
