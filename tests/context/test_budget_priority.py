"""Budget priority by what the question asked, through `pixiu context` on an imported home:
a question about the account keeps every holding's line (shares, weight, P&L) and the total
at the default budget, in compact lines when the full ones cannot all fit; a question about
one small position keeps that stock's section."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pixiu_cli.conversation.tokenizer.counts import count_tokens
from pixiu_cli.kernel.vocabulary import MemoryLimits
from tests.helpers import in_process_ok

MARKET = Path(__file__).resolve().parents[1] / "fixtures" / "market"
PRICED = "000333"  # the one holding with bars (tests/fixtures/market/000333.csv): its line has a P&L


def _holdings(count: int) -> list[dict]:
    """`count` positions, the weights falling with the index; the priced one among the middle."""
    rows = [
        {"symbol": f"{600000 + 3 * i:06d}", "name": f"测试{i:02d}号", "shares": 100 * (count - i), "cost": 10.0 + i}
        for i in range(count - 1)
    ]
    rows.insert(count // 2, {"symbol": PRICED, "name": "美的集团", "shares": 1000, "cost": 60.5})
    return [{**row, "role": "core" if i % 4 == 0 else "satellite"} for i, row in enumerate(rows)]


def _home(env: dict[str, str], tmp_path: Path, count: int) -> list[dict]:
    holdings = _holdings(count)
    profile = {"strategy": "网格交易", "period": "2018-01 至 2023-12", "annual_return": 0.08, "max_drawdown": -0.3}
    document = {
        "holdings": holdings,
        "profiles": [{"symbol": h["symbol"], **profile, "days_ago": 10} for h in holdings],
        "notes": [{"kind": "rule", "text": "单只个股仓位不超过总资产的25%", "days_ago": 20}],
        "persona": {"风险偏好": "稳健"},
    }
    path = tmp_path / "account.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    in_process_ok(env, "import", str(path))
    in_process_ok(env, "data", "import", str(MARKET / "000333.csv"), "--symbol", PRICED, "--no-refresh")
    in_process_ok(env, "cash", "set", "100000")
    return holdings


def _block(env: dict[str, str], question: str) -> str:
    return json.loads(in_process_ok(env, "context", question, "--json"))[-2]["content"]


def _holding_lines(block: str) -> list[str]:
    section = block[block.index("## 持仓（") :].split("\n\n", 1)[0]
    return section.split("\n")


@pytest.mark.parametrize("count", [12, 20, 50])
def test_a_portfolio_question_shows_every_holding_and_the_total(offline_env, tmp_path, count):
    holdings = _home(offline_env, tmp_path, count)
    block = _block(offline_env, "我的持仓怎么样")
    assert count_tokens(block) <= MemoryLimits().budget_tokens
    lines = _holding_lines(block)
    assert any(line.startswith("- [事实] 总资产 ") for line in lines), lines[:3]
    for h in holdings:
        line = next((x for x in lines if f"{h['symbol']} {h['name']}" in x), None)
        assert line is not None, f"{h['symbol']} missing from the holdings list"
        assert f"{h['shares']:,} 股" in line and "仓位 " in line, line
    priced = next(x for x in lines if f"{PRICED} 美的集团" in x)
    assert "浮动盈亏 " in priced, priced


def test_fifty_holdings_are_said_to_be_compact(offline_env, tmp_path):
    _home(offline_env, tmp_path, 50)
    lines = _holding_lines(_block(offline_env, "我的持仓怎么样"))
    assert lines[0] == "## 持仓（50 只，精简）" and lines[1].startswith("（精简格式：")


def test_a_small_position_question_keeps_its_section(offline_env, tmp_path):
    smallest = _holdings(50)[-1]
    _home(offline_env, tmp_path, 50)
    block = _block(offline_env, f"{smallest['symbol']} 还拿着吗")
    assert count_tokens(block) <= MemoryLimits().budget_tokens
    section = block[block.index(f"## 标的上下文：{smallest['symbol']} {smallest['name']}") :].split("\n\n", 1)[0]
    assert f"持仓关联：卫星仓，{smallest['shares']} 股，成本 {smallest['cost']:.2f}" in section
    assert "网格交易" in section  # its profile, whole
    assert "总资产 " in block
