"""What a broker statement says stands over what was stated or told before it: a JSON
document's holding of a stock the statements derive is named as a conflict and the ledger's
figures kept (`pixiu import`), and a trade told with `pixiu trade` (its fees told or an
estimate) becomes the statement's fill with the statement's fees (`pixiu trades import`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import clean_env, in_process_ok, pixiu_in_process

STATEMENTS = Path(__file__).resolve().parents[1] / "fixtures" / "statements"
THS = STATEMENTS / "ths_jiaogedan.csv"
NOW = "2025-08-20T16:00:00"


@pytest.fixture
def env(tmp_path):
    return clean_env(tmp_path / "home", PIXIU_NOW=NOW)


def held(env) -> dict[str, dict]:
    return {h["symbol"]: h for h in json.loads(in_process_ok(env, "holdings", "--json"))["holdings"]}


def document(tmp_path: Path, *holdings: dict) -> Path:
    path = tmp_path / "portfolio.json"
    path.write_text(json.dumps({"holdings": list(holdings)}, ensure_ascii=False), encoding="utf-8")
    return path


def test_a_document_holding_a_stock_the_statements_derive_names_the_conflict_and_keeps_the_ledger(env, tmp_path):
    in_process_ok(env, "trades", "import", str(THS))
    before = held(env)
    # 000333 美的集团: 500 bought, 200 and 100 sold, 90 bonus shares: 290 held, realised P&L from the sales
    assert before["000333"]["shares"] == 290.0 and before["000333"]["realised_pnl"] > 0
    path = document(
        tmp_path,
        {
            "symbol": "000333",
            "name": "美的集团",
            "shares": 500,
            "cost": 70.0,
            "role": "core",
            "updated_at": "2025-08-20",
        },
        {"symbol": "600519", "name": "贵州茅台", "shares": 100, "cost": 1500.0, "role": "satellite"},
    )
    done = pixiu_in_process(env, "import", str(path), text=True)
    assert done.returncode == 0, done.stderr
    assert "持仓 000333 美的集团：导入文件为 500 股，按已导入的对账单推算为 290 股" in done.stderr
    assert "pixiu import --replace" in done.stderr
    after = held(env)
    figures = ("shares", "cost", "average_cost", "realised_pnl", "holding_pnl", "cost_in", "proceeds")
    assert {k: after["000333"][k] for k in figures} == {k: before["000333"][k] for k in figures}
    assert after["000333"]["role"] == "core"  # what the statements do not say follows the file
    assert after["600519"]["shares"] == 100.0  # a stock no statement has is the file's
    # asked for, the document's holding replaces the account's
    in_process_ok(env, "import", "--replace", str(path))
    assert (held(env)["000333"]["shares"], held(env)["000333"]["realised_pnl"]) == (500.0, 0.0)


def test_replacing_with_an_undated_holding_states_the_files_shares_not_the_files_plus_the_statements(env, tmp_path):
    # the plain import names the conflict and points to --replace; asked, the file's 500 is the
    # holding as of the import: the statements' kept fills do not move it again (not 500 + 290)
    in_process_ok(env, "trades", "import", str(THS))
    path = document(tmp_path, {"symbol": "000333", "name": "美的集团", "shares": 500, "cost": 70.0, "role": "core"})
    done = pixiu_in_process(env, "import", str(path), text=True)
    assert "pixiu import --replace" in done.stderr and held(env)["000333"]["shares"] == 290.0
    in_process_ok(env, "import", "--replace", str(path))
    assert (held(env)["000333"]["shares"], held(env)["000333"]["cost"]) == (500.0, 70.0)


@pytest.mark.parametrize(
    "told",
    [
        ("--fee", "5"),  # fees estimated low: the statement paid 12.75 + 0.43
        ("--fee", "0"),
    ],
)
def test_a_trade_told_then_found_in_a_statement_is_one_fill_with_the_statements_fees(env, told):
    in_process_ok(env, "trade", "buy", "600036", "1000", "42.5", "--date", "2025-03-04", *told)
    said = in_process_ok(env, "trades", "import", str(THS))
    assert "与对话中记录的同一笔交易合并 1 笔" in said
    listed = json.loads(in_process_ok(env, "trades", "list", "600036", "--json"))
    buys = [t for t in listed if t["day"] == "2025-03-04"]
    assert [(t["quantity"], t["price"], t["fees"]) for t in buys] == [(1000.0, 42.5, 13.18)]
    assert held(env)["600036"]["shares"] == 1300.0  # 1,000 bought + 300 配股, once


def test_a_told_price_in_fen_is_the_statements_average_price(env, tmp_path):
    # the client writes 成交均价 to three places: 42.503 told as 42.50
    path = tmp_path / "jgd.csv"
    rows = THS.read_text(encoding="utf-8-sig").splitlines()
    rows = [
        r.replace(
            "1000,42.500,42500.00,12.75,0.00,0.43,0.00,-42513.18", "1000,42.503,42503.00,12.75,0.00,0.43,0.00,-42516.18"
        )
        for r in rows
    ]
    path.write_text("\n".join(rows[:4]) + "\n", encoding="utf-8")
    in_process_ok(env, "trade", "buy", "600036", "1000", "42.50", "--date", "2025-03-04", "--fee", "5")
    in_process_ok(env, "trades", "import", str(path))
    listed = json.loads(in_process_ok(env, "trades", "list", "600036", "--json"))
    assert [(t["quantity"], t["price"], t["fees"]) for t in listed] == [(1000.0, 42.503, 13.18)]
