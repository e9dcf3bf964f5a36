"""Every door money comes in by passes the same plausibility gate, relative to the stock's own
stored bars and the shares held, not only an absolute cap: `pixiu cash set`, a broker
statement (`pixiu trades import`), a JSON document (`pixiu import`) and a trade told by hand
(`pixiu trade`, the model's record_decision). What fails is refused in one line naming the
row and the field, nothing is written, and the account still reads. A JSON document's rows
dated after today (news, decisions, reports) are refused as the sync refuses them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import bars_csv, clean_env, in_process_ok, in_process_refused

NOW = "2022-06-01T16:00"
# 平安银行's real unadjusted bars (the shared histories, /work/shared/market/000001.csv)
BARS_000001 = (
    "2022-05-25,14.43,14.49,14.3,14.39,60322826",
    "2022-05-26,14.41,14.43,14.07,14.19,101131756",
    "2022-05-27,14.29,14.35,14.11,14.18,72306674",
    "2022-05-30,14.26,14.28,14.04,14.08,89690123",
    "2022-05-31,14.07,14.18,14.0,14.16,93886855",
    "2022-06-01,14.14,14.14,14.0,14.08,84529898",
)
HEADER = "成交日期,成交时间,证券代码,证券名称,操作,成交数量,成交均价,成交金额,手续费,印花税,过户费,其他杂费,发生金额,资金余额,合同编号,股东代码"
DEPOSIT = "20220524,09:30:00,,,银证转入,0,0.000,0.00,0.00,0.00,0.00,0.00,1000000.00,1000000.00,,"
BUY = "20220526,10:05:12,000001,平安银行,证券买入,100,14.200,1420.00,5.00,0.00,0.00,0.00,-1425.00,998575.00,1001,A1"


@pytest.fixture
def env(pixiu_home, tmp_path):
    env = clean_env(pixiu_home, PIXIU_NOW=NOW)
    in_process_ok(env, "data", "import", str(bars_csv(tmp_path / "000001.csv", *BARS_000001)), "--symbol", "000001")
    return env


def holdings(env) -> list:
    return json.loads(in_process_ok(env, "holdings", "--json"))["holdings"]


def statement(tmp_path: Path, *rows: str) -> Path:
    path = tmp_path / "statement.csv"
    path.write_bytes(("\r\n".join([HEADER, DEPOSIT, *rows]) + "\r\n").encode("gbk"))
    return path


def test_cash_set_past_any_account_is_refused_and_the_account_reads(env):
    assert in_process_refused(env, "cash", "set", "1e99") == (
        "错误：现金余额不合理：1e+99 元超过任何账户的金额（上限 1 万亿元）"
    )
    in_process_ok(env, "cash", "set", "5000")
    assert json.loads(in_process_ok(env, "holdings", "--json"))["cash"]["amount"] == 5000.0
    in_process_ok(env, "trade", "buy", "000001", "100", "14.2", "--date", "2022-05-26")
    in_process_ok(env, "brief", "--yes")


def test_a_statement_fill_far_from_the_stocks_bars_is_refused(env, tmp_path):
    far = BUY.replace(",14.200,1420.00,", ",99999.000,9999900.00,").replace("-1425.00,998575.00", "-9999905.00,0.00")
    said = in_process_refused(env, "trades", "import", str(statement(tmp_path, far)))
    # the stretch 2022-05-25 … 2022-06-01 traded between 14.00 and 14.49; ±10% more is the most
    assert said.startswith(
        "错误：对账单中 2022-05-26 买入 000001 的成交价：成交价 99999 元远离该股 2022-05-25 至 2022-06-01"
    )
    assert "未导入任何内容" in said and holdings(env) == []
    in_process_ok(env, "trades", "import", str(statement(tmp_path, BUY)))
    assert [(h["symbol"], h["shares"]) for h in holdings(env)] == [("000001", 100)]


def test_a_statement_dividend_absurd_for_the_shares_held_is_refused(env, tmp_path):
    dividend = (
        "20220531,09:30:00,000001,平安银行,股息入账,0,0.000,0.00,0.00,0.00,0.00,0.00,99000000000.00,99000998575.00,,A1"
    )
    said = in_process_refused(env, "trades", "import", str(statement(tmp_path, BUY, dividend)))
    # ¥99 bn on the 100 shares held the day before is ¥990 m a share, above the ¥14.08 close
    assert said.startswith(
        "错误：对账单中 2022-05-31 股息入账 000001 的金额：99,000,000,000.00 元合每股 9.9e+08 元（持有 100 股）"
    )
    assert holdings(env) == []
    believable = dividend.replace("99000000000.00,99000998575.00", "30.00,998605.00")  # ¥0.30 a share
    in_process_ok(env, "trades", "import", str(statement(tmp_path, BUY, believable)))
    assert [(h["symbol"], h["shares"]) for h in holdings(env)] == [("000001", 100)]


def test_a_json_fill_far_from_the_stocks_bars_is_refused_with_its_row(env, tmp_path):
    fill = {"fill_id": "f1", "day": "2022-05-26", "kind": "buy", "symbol": "000001", "quantity": 100,
            "price": 99999, "amount": 9999900, "fees": 5}  # fmt: skip
    path = tmp_path / "doc.json"
    path.write_text(json.dumps({"version": 2, "account": {"fills": [fill], "cash": []}}), encoding="utf-8")
    said = in_process_refused(env, "import", str(path))
    assert said.startswith("错误：导入失败，未做任何修改：account.fills[0].price：成交价 99999 元远离该股")
    assert holdings(env) == []


def test_a_trade_told_by_hand_far_from_the_bars_is_refused(env):
    said = in_process_refused(env, "trade", "buy", "000001", "100", "99999", "--date", "2022-05-26")
    assert said.startswith("错误：不能记录这笔交易：成交价 99999 元远离该股 2022-05-25 至 2022-06-01")
    assert holdings(env) == []
    in_process_ok(env, "trade", "buy", "000001", "100", "14.2", "--date", "2022-05-26")
    assert [(h["symbol"], h["shares"]) for h in holdings(env)] == [("000001", 100)]


@pytest.mark.parametrize(
    "section, row, field",
    [
        ("news", {"symbol": "000001", "title": "利好", "published_at": "9999-01-01"}, "published_at"),
        ("decisions", {"symbol": "000001", "side": "buy", "price": 14.2, "quantity": 100, "decided_at": "9999-01-01"},
         "decided_at"),
        ("reports", {"title": "周报", "conclusion": "稳", "created_at": "9999-01-01"}, "created_at"),
    ],
)  # fmt: skip
def test_a_json_row_dated_after_today_is_refused(env, tmp_path, section, row, field):
    path = tmp_path / "doc.json"
    path.write_text(json.dumps({section: [row]}, ensure_ascii=False), encoding="utf-8")
    assert in_process_refused(env, "import", str(path)) == (
        f"错误：导入失败，未做任何修改：{section}[0].{field}：日期 9999-01-01 在未来（今天是 2022-06-01）"
    )
    row[field] = "2022-06-01"
    path.write_text(json.dumps({section: [row]}, ensure_ascii=False), encoding="utf-8")
    in_process_ok(env, "import", str(path))


def test_the_models_record_decision_is_refused_far_from_the_bars(env):
    # the offline model calls record_decision with the told price, as a live model would
    done = in_process_ok(env, "ask", "今天以 99999 元买入平安银行 100 股")
    assert "成交价 99999 元远离该股" in done
    assert holdings(env) == []


def test_a_json_dividend_absurd_for_the_shares_its_fills_hold_is_refused(env, tmp_path):
    buy = {"fill_id": "f1", "day": "2022-05-26", "kind": "buy", "symbol": "000001", "quantity": 100, "price": 14.2,
           "amount": 1420, "fees": 5}  # fmt: skip
    dividend = {"fill_id": "f2", "day": "2022-05-31", "kind": "dividend", "symbol": "000001", "amount": 99e9}
    path = tmp_path / "doc.json"
    path.write_text(json.dumps({"version": 2, "account": {"fills": [buy, dividend], "cash": []}}), encoding="utf-8")
    said = in_process_refused(env, "import", str(path))
    # the document's own buy holds the 100 shares: ¥99 bn is ¥990 m a share, above the ¥14.08 close
    assert said.startswith(
        "错误：导入失败，未做任何修改：account.fills[1].amount：99,000,000,000.00 元合每股 9.9e+08 元"
    )
    assert holdings(env) == []
    dividend["amount"] = 30.0
    path.write_text(json.dumps({"version": 2, "account": {"fills": [buy, dividend], "cash": []}}), encoding="utf-8")
    in_process_ok(env, "import", str(path))
    assert [(h["symbol"], h["shares"]) for h in holdings(env)] == [("000001", 100)]
