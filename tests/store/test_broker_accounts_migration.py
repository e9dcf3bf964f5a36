"""A home from before several accounts opens with one account, the default, named after its
statements (the last digits of the 股东代码 they name), holding every
fill and every stated balance, with the 股东代码 its statements named; a row written
afterwards without an account goes to that one, and a row naming an unknown account adds it."""

from __future__ import annotations

import json
from datetime import datetime

from sqlite_utils import Database

from pixiu_cli.account.handle import Account
from pixiu_cli.account.overview import account_record, read_account
from pixiu_cli.kernel.store.schema import migrations
from pixiu_cli.market.calendar import SHANGHAI

NOW = datetime(2025, 3, 7, 16, tzinfo=SHANGHAI)


def _older_home() -> Database:
    db = Database(memory=True)
    migrations.apply(db, stop_before="m037_broker_accounts")
    fills = [
        ("T1", "2025-03-03", "transfer_in", None, 0, 0, 100000.0, 0, None),
        ("T2", "2025-03-03", "buy", "600519", 10, 1500.0, 15000.0, 5.0, "A123456789"),
        ("T3", "2025-03-04", "buy", "000333", 100, 70.0, 7000.0, 5.0, "0123456789"),
    ]
    for fill_id, day, kind, symbol, quantity, price, amount, fees, code in fills:
        db.execute(
            "insert into account_fills (fill_id, day, kind, symbol, quantity, price, amount, fees, account, origin) "
            "values (?, ?, ?, ?, ?, ?, ?, ?, ?, 'statement')",
            [fill_id, day, kind, symbol, quantity, price, amount, fees, code],
        )
    db.execute(
        "insert into account_cash (amount, as_of, source, set_at) values (77990.0, '2025-03-04', 'statement', 'x')"
    )
    db.execute("insert into position_checkpoints (symbol, through, state) values ('600519', '2025-03-03', '{}')")
    migrations.apply(db)
    return db


def test_an_older_home_opens_with_one_account_holding_everything():
    db = _older_home()
    assert db.execute("select name, shareholder_codes from broker_accounts").fetchall() == [
        ("对账单-6789", json.dumps(["0123456789", "A123456789"]))
    ]
    for table in ("account_fills", "account_cash"):
        assert db.execute(f"select distinct broker_account from {table}").fetchall() == [("对账单-6789",)], table
    assert db.execute("select count(*) from position_checkpoints").fetchone()[0] == 0  # a cache: rebuilt
    record = account_record(read_account(Account(db), NOW))
    by_account = account_record(read_account(Account(db), NOW, "对账单-6789"))
    assert [h["shares"] for h in record["holdings"]] == [10, 100]
    assert {k: v for k, v in record.items() if k != "account"} == {
        k: v for k, v in by_account.items() if k != "account"
    }
    assert record["cash"]["amount"] == 77990.0


def test_rows_written_without_an_account_go_to_the_default_and_a_new_name_is_registered():
    db = _older_home()
    db.execute(
        "insert into account_fills (fill_id, day, kind, quantity, price, amount, fees) values ('T4', '2025-03-05', 'interest', 0, 0, 1.0, 0)"
    )
    db.execute(
        "insert into account_cash (amount, as_of, source, set_at, broker_account) values (5.0, '2025-03-05', 'user', 'x', '招商')"
    )
    assert db.execute("select broker_account from account_fills where fill_id = 'T4'").fetchone() == ("对账单-6789",)
    assert [r[0] for r in db.execute("select name from broker_accounts order by id")] == ["对账单-6789", "招商"]
