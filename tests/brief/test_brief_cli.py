"""`pixiu brief` end to end in a fresh home with the demo's holdings and bars: the offline
reading model writes the brief over HTTP through the real client, its figures match the
stored data, and a new conversation's block shows its conclusion under 近期报告结论. A paid
call over [brief] confirm_above is shown and asked for before anything is sent."""

from __future__ import annotations

import json

from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.store import MarketStore
from tests.helpers import PLANTED_KEY, clean_env, demo_brief_env, pixiu_in_process

NOW = "2026-11-30T16:30:00"  # a Monday, after the close


def demo_home(home):
    return demo_brief_env(home, NOW)


def test_demo_brief_numbers_match_the_data_and_the_next_conversation_sees_its_conclusion(tmp_path):
    env = demo_home(tmp_path / "home")
    done = pixiu_in_process(env, "brief", "--json", text=True)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["offline"] and out["status"] == "complete" and out["reply"].startswith("（离线评测模型")
    db = open_database(tmp_path / "home" / "pixiu.db")
    try:
        bars = MarketStore(db).bars("000333")
    finally:
        db.close()
    close, prev = bars.close[-1], bars.close[-2]
    midea = next(h for h in out["facts"]["holdings"] if h["symbol"] == "000333")
    assert (midea["close"], midea["as_of"], midea["ref_close"]) == (close, bars.dates[-1], prev)
    assert abs(midea["change"] - 2000 * (close - prev)) < 1e-6  # the demo holds 2,000 shares, no action since
    line = next(x for x in out["fact_lines"] if x.startswith("- 000333"))
    assert f"收盘 {close:.2f}" in line and f"盈亏变动 {2000 * (close - prev):+,.2f}" in line
    assert f"市值 {2000 * close:,.2f}" in line and f"浮动盈亏 {2000 * close - 2000 * 62.3:+,.2f}" in line
    book = {"600519": 200 * 1580.0, "600036": 5000 * 33.2, "601318": 3000 * 48.9, "300750": 400 * 228.5,
            "000858": 1000 * 142.6, "002415": 3000 * 33.8, "688981": 800 * 86.4}  # fmt: skip
    total = sum(book.values()) + 2000 * close
    assert (
        f"- 600519 贵州茅台：无行情数据；按成本计 {book['600519']:,.2f}，仓位 {book['600519'] / total * 100:.1f}%"
        in out["fact_lines"]
    )
    cap = [x for x in out["fact_lines"] if x.startswith("- 仓位上限")]
    assert cap == [
        f"- 仓位上限：600519 仓位 {book['600519'] / total * 100:.1f}%，超过上限 25.0%"
        "（画像 constraints：「单只个股仓位不超过总资产的25%」）"
    ]  # the persona's cap; the same cap in a note is the same rule

    context = pixiu_in_process(env, "context", "最近怎么样", "--json", text=True)
    assert context.returncode == 0, context.stderr
    block = next(m["content"] for m in json.loads(context.stdout) if m["content"].startswith("[上下文信息]"))
    section = block[block.index("## 近期报告结论") :].split("\n## ")[0]
    line = next(x for x in section.splitlines() if "每日简报" in x)
    assert line.startswith("- [混合 · 2026-11-30]") and out["conclusion"][:30] in line
    assert f"对话 {out['conversation_id']} 第 {out['turn']} 轮" in line and "覆盖 8 只持仓" in line


def test_brief_text_output_shows_facts_then_the_brief_and_where_its_call_is(tmp_path):
    env = demo_home(tmp_path / "home")
    done = pixiu_in_process(env, "brief", text=True)
    assert done.returncode == 0, done.stderr
    assert (
        done.stdout.index("【事实（pixiu 本地计算") < done.stdout.index("（离线评测模型") < done.stdout.index("结论：")
    )
    assert "结论已保存为报告 report:" in done.stdout + done.stderr and "/context 1" in done.stdout + done.stderr
    shown = pixiu_in_process(env, "context", "--conversation", "1", "--turn", "1", text=True)
    assert shown.returncode == 0 and "每日简报" in shown.stdout


def test_a_paid_brief_over_the_limit_is_shown_and_needs_yes(server, tmp_path):
    home = tmp_path / "home"
    demo_home(home)
    (home / "config.toml").write_text("[brief]\nconfirm_above = 0\n", encoding="utf-8")
    env = clean_env(
        home, PIXIU_NOW=NOW, PIXIU_API_KEY=PLANTED_KEY, PIXIU_BASE_URL=server.base_url, PIXIU_MODEL="deepseek-flash",
        PIXIU_MAX_RETRIES="0",
    )  # fmt: skip
    refused = pixiu_in_process(env, "brief", text=True)
    assert refused.returncode == 1 and "--yes" in refused.stderr and "Traceback" not in refused.stderr
    assert "预计约" in refused.stderr and "CNY" in refused.stderr and "confirm_above = 0" in refused.stderr
    assert server.requests == []  # nothing was sent
    paid = pixiu_in_process(env, "brief", "--yes", "--json", text=True)
    assert paid.returncode == 0, paid.stderr
    assert json.loads(paid.stdout)["report_id"] and len(server.requests) == 1
    (home / "config.toml").write_text("[brief]\nconfirm_above = 5\n", encoding="utf-8")
    cheap = pixiu_in_process(env, "brief", "--json", text=True)
    assert cheap.returncode == 0 and "预计约" not in cheap.stderr  # under the limit: no question


def test_bad_brief_setting_and_no_holdings_are_one_line(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = clean_env(home, PIXIU_NOW=NOW)
    empty = pixiu_in_process(env, "brief", text=True)
    assert empty.returncode == 1 and "没有持仓" in empty.stderr and len(empty.stderr.strip().splitlines()) == 1
    (home / "config.toml").write_text("[brief]\nconfirm_above = -1\n", encoding="utf-8")
    bad = pixiu_in_process(env, "brief", text=True)
    assert bad.returncode != 0 and "confirm_above" in bad.stderr and "Traceback" not in bad.stderr


def test_the_brief_dates_its_cash_as_holdings_does_and_its_conclusion_has_no_empty_clause(tmp_path):
    env = demo_home(tmp_path / "home")
    assert pixiu_in_process(env, "cash", "set", "134204.78", "--date", "2026-11-27", text=True).returncode == 0
    done = pixiu_in_process(env, "brief", "--json", text=True)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    holdings = pixiu_in_process(env, "holdings", text=True).stdout
    said = next(x for x in holdings.splitlines() if x.startswith("现金 ")).split("；", 1)[0]
    assert said == "现金 134,204.78（2026-11-27 余额 134,204.78）"
    portfolio = next(x for x in out["fact_lines"] if x.startswith("组合："))
    assert portfolio.endswith("；" + said)
    conclusion = next(x for x in out["reply"].splitlines() if x.startswith("结论："))
    assert not conclusion.startswith("结论：，") and "，，" not in conclusion
    assert conclusion.startswith(f"结论：截至 {out['facts']['session']} 收盘，有行情的持仓")
