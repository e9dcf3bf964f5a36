"""The account's other doors pass the checks a statement's rows pass: the ledger of a JSON
document (`pixiu import`) and a trade told one at a time (`pixiu trade`) are refused in one
line with the field, nothing written; a balance dated after today, however it got into the
database, never pins the cash over a later `cash set`. Real homes, the real entry point in
process."""

from __future__ import annotations

import json
import sqlite3

import pytest

from tests.helpers import clean_env, in_process_ok, in_process_refused

NOW = "2025-08-20T16:00"
REFUSED = "错误：导入失败，未做任何修改："


@pytest.fixture
def env(pixiu_home):
    return clean_env(pixiu_home, PIXIU_NOW=NOW)


def run(env, *args) -> str:
    return in_process_ok(env, *args, warnings=True)


fails = in_process_refused


def account(env) -> dict:
    return json.loads(run(env, "holdings", "--json"))


# a buy of 100 贵州茅台 at ¥1,500.00 with ¥5 fees, and a balance stated after it
FILL = {"fill_id": "f1", "day": "2025-03-03", "kind": "buy", "symbol": "600519", "quantity": 100, "price": 1500,
        "amount": 150000, "fees": 5, "cash_change": -150005}  # fmt: skip
CASH = {"amount": 849995, "as_of": "2025-03-03", "source": "statement"}


def document(tmp_path, fill=None, cash=None):
    path = tmp_path / "account.json"
    doc = {"version": 2, "account": {"fills": [{**FILL, **(fill or {})}], "cash": [{**CASH, **(cash or {})}]}}
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "fill, cash, message",
    [
        (None, {"as_of": "9999-12-31"}, "account.cash[0].as_of：日期 9999-12-31 在未来（今天是 2025-08-20）"),
        (None, {"amount": 1e300}, "account.cash[0].amount：1e+300 元超过任何账户的金额（上限 1 万亿元）"),
        ({"day": "1989-12-29"}, None, "account.fills[0].day：日期 1989-12-29 早于 A 股开市（1990-12-19）"),
        ({"quantity": 1e300}, None, "account.fills[0].quantity：1e+300 股超过可能的持股数量"),
        ({"quantity": 100.5}, None, "account.fills[0].quantity：100.5 不是整数股"),
        ({"price": 1e6}, None, "account.fills[0].price：1e+06 元超过任何 A 股价格（上限 100,000 元）"),
        ({"fees": -99999}, None, "account.fills[0].fees：-99999 元不是有效费用（费用不能为负）"),
    ],
)
def test_a_json_ledger_row_no_account_could_have_is_refused(env, tmp_path, fill, cash, message):
    assert fails(env, "import", str(document(tmp_path, fill, cash))) == REFUSED + message
    assert account(env)["holdings"] == [] and account(env)["cash"] is None


def test_the_same_document_with_plausible_rows_is_imported(env, tmp_path):
    run(env, "import", str(document(tmp_path)))
    view = account(env)
    # 150,005 / 100 = 1,500.05; the cash as stated, no fill after it
    assert [(h["symbol"], h["shares"], h["cost"]) for h in view["holdings"]] == [("600519", 100, 1500.05)]
    assert view["cash"]["amount"] == 849995.0


def test_a_balance_from_the_future_already_stored_never_pins_the_cash(env, pixiu_home):
    run(env, "cash", "set", "5000")
    db = sqlite3.connect(pixiu_home / "pixiu.db")
    with db:  # as an older version let a document store it
        db.execute("insert into account_cash (amount, as_of, source, set_at) values (777, '9999-12-31', 'statement', ?)",
                   [NOW])  # fmt: skip
    db.close()
    assert account(env)["cash"]["amount"] == 5000.0
    run(env, "cash", "set", "12345")
    assert account(env)["cash"]["amount"] == 12345.0


@pytest.mark.parametrize(
    "args, message",
    [
        (("1e300", "1500"), "1e+300 股超过可能的持股数量"),
        (("100.5", "1500"), "100.5 不是整数股"),
        (("100", "1e7"), "1e+07 元超过任何 A 股价格（上限 100,000 元）"),
        # 100 × 15 = 1,500: a tenth of it plus ¥100 = 250.00 at most
        (("100", "15", "--fee", "9999"), "费用 9,999.00 元不合理（成交金额 1,500.00 元，费用至多 250.00 元）"),
    ],
)
def test_a_trade_told_by_hand_no_account_could_have_is_refused(env, args, message):
    assert fails(env, "trade", "buy", "600519", *args) == f"错误：不能记录这笔交易：{message}"
    view = account(env)  # still derivable: nothing was written
    assert view["holdings"] == []
