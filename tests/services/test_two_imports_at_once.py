"""Two imports of one statement at once, on two connections to one real SQLite file: the
second reads what the account has only once it holds the write lock, so it finds the first
one's fills and adds none (it neither fails on a fill id stored meanwhile nor adds a fill
twice)."""

from __future__ import annotations

import threading
import time
from datetime import datetime

from pixiu_cli.account.handle import Account
from pixiu_cli.account.overview import account_record, read_account
from pixiu_cli.account.statement_import import import_statement
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.calendar import SHANGHAI

NOW = datetime(2025, 8, 20, 16, 0, tzinfo=SHANGHAI)
HEADER = "成交日期,成交时间,证券代码,证券名称,操作,成交数量,成交均价,成交金额,发生金额,成交编号"


def test_an_import_waiting_for_the_lock_sees_the_fills_written_meanwhile(tmp_path):
    # 20 buys of 100 招商银行 at ¥40.00 on Monday 2025-03-03, each with its 成交编号
    rows = [f"20250303,10:00:00,600036,招商银行,买入,100,40.000,4000.00,-4000.00,T{k:04d}" for k in range(1, 21)]
    path = tmp_path / "交割单.csv"
    path.write_bytes(("\r\n".join([HEADER, *rows]) + "\r\n").encode("gbk"))
    first, second = open_database(tmp_path / "pixiu.db"), open_database(tmp_path / "pixiu.db")
    outcome: dict = {}

    def later() -> None:
        try:
            outcome["done"] = import_statement(Account(second), path, NOW)
        except Exception as exc:  # the failure the test looks for, whatever its type
            outcome["error"] = exc

    try:
        first.conn.execute("BEGIN IMMEDIATE")  # the first import holds the write lock
        waiting = threading.Thread(target=later)
        waiting.start()
        time.sleep(0.5)  # the second import has started and waits for the lock
        assert import_statement(Account(first), path, NOW).added == 20
        first.conn.execute("COMMIT")
        waiting.join(timeout=30)
        assert "error" not in outcome, outcome.get("error")
        assert (outcome["done"].added, outcome["done"].duplicates) == (0, 20)
        # 20 × 100 = 2,000 shares at 40.00, once
        held = account_record(read_account(Account(first), NOW))["holdings"]
        assert [(h["symbol"], h["shares"], h["cost"]) for h in held] == [("600036", 2000, 40.0)]
        assert first.execute("select count(*) from account_fills").fetchone() == (20,)
    finally:
        first.close()
        second.close()
