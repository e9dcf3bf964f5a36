"""`import_statement` on a real SQLite file: what it adds, what it recognises as already
there (the same statement, an overlapping one from another client, a trade told in
conversation), what it refuses, and what it leaves untouched."""

from __future__ import annotations

import hashlib
from datetime import datetime
from pathlib import Path

import pytest

from pixiu_cli.account.handle import Account
from pixiu_cli.account.overview import account_record, read_account
from pixiu_cli.account.statement_import import import_statement
from pixiu_cli.account.statements.rows import StatementError
from pixiu_cli.account.store import AccountStore
from pixiu_cli.account.trades import NewTrade, record_trade, undo_trade
from pixiu_cli.brief.handle import Brief
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.calendar import SHANGHAI

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "statements"
THS = FIXTURES / "ths_jiaogedan.csv"
TDX = FIXTURES / "tdx_duizhangdan.txt"
NOW = datetime(2025, 8, 20, 16, 0, tzinfo=SHANGHAI)
TABLES = ("holdings", "account_fills", "account_cash", "decisions", "memory_events")


@pytest.fixture
def db(tmp_path):
    database = open_database(tmp_path / "pixiu.db")
    yield database
    database.close()


def digest(db) -> str:
    """Everything the account is made of, row by row."""
    h = hashlib.sha256()
    for table in TABLES:
        for row in db.execute(f"select * from {table} order by rowid").fetchall():
            h.update(repr(row).encode())
    return h.hexdigest()


def holdings(db, method: str = "diluted") -> dict[str, tuple]:
    """Shares and cost (to 4 decimals, as shown) of every holding the account derives."""
    record = account_record(read_account(Account(db, method), NOW))
    return {h["symbol"]: (h["shares"], h["cost"]) for h in record["holdings"]}


def cash(db) -> float | None:
    record = account_record(read_account(Account(db), NOW))
    return record["cash"]["amount"] if record["cash"] else None


def test_import_sets_holdings_cost_and_cash(db):
    done = import_statement(Account(db), THS, NOW)
    assert (done.added, done.duplicates, done.layout) == (12, 0, "同花顺交割单")
    # 摊薄成本 by default (hand computation: tests/statements/test_statement_layouts.py)
    assert holdings(db) == {"000333": (290, 38.4313), "600036": (1300, 39.6255), "603375": (500, 10.5)}
    assert cash(db) == 27094.95
    # the buys and sells are decisions on their real days, for `pixiu track`
    assert db.execute("select symbol, side, decided_at, source from decisions order by id").fetchall() == [
        ("000333", "buy", "2025-03-03T10:05:12+08:00", "statement"),
        ("600036", "buy", "2025-03-04T14:20:30+08:00", "statement"),
        ("000333", "sell", "2025-03-20T10:30:00+08:00", "statement"),
        ("000333", "sell", "2025-08-12T09:45:10+08:00", "statement"),
    ]


def test_the_average_cost_method(db):
    import_statement(Account(db, "average"), THS, NOW)
    assert holdings(db, "average")["000333"] == (290, 53.8544)
    line = next(
        h for h in account_record(read_account(Account(db, "average"), NOW))["holdings"] if h["symbol"] == "000333"
    )
    assert (line["cost"], line["diluted_cost"], line["average_cost"], line["realised_pnl"]) == (
        53.8544,
        38.4313,
        53.8544,
        4472.69,
    )


def test_reimporting_the_same_or_another_clients_export_changes_nothing(db):
    import_statement(Account(db), THS, NOW)
    before = digest(db)
    again = import_statement(Account(db), THS, NOW)
    assert (again.added, again.duplicates, again.holdings, again.cash) == (0, 12, (), None)
    other = import_statement(Account(db), TDX, NOW)  # other ids (成交编号), the same fills
    assert (other.added, other.duplicates) == (0, 12)
    assert digest(db) == before


def test_a_later_overlapping_statement_adds_only_what_is_new(db, tmp_path):
    import_statement(Account(db), THS, NOW)
    lines = THS.read_bytes().decode("utf-8-sig").splitlines()
    later = [lines[0], *[x for x in lines[1:] if x[:8] >= "20250701"]]
    later.append(
        '20250901,10:00:00,="000333",美的集团,买入,100,78.000,7800.00,5.00,0.00,0.08,0.00,-7805.08,19289.87,1005,0123456789'
    )
    path = tmp_path / "later.csv"
    path.write_text("\n".join(later) + "\n", encoding="utf-8")
    done = import_statement(Account(db), path, datetime(2025, 9, 2, 16, tzinfo=SHANGHAI))
    assert (done.added, done.duplicates) == (1, 4)  # 配股缴款, a sale, the tax, a transfer: had
    # 11,145.08 + 7,805.08 = 18,950.16 over 390 shares = 48.5902
    assert holdings(db)["000333"] == (390, 48.5902)
    assert cash(db) == 19289.87
    assert db.execute("select count(*) from account_fills").fetchone()[0] == 13


def test_a_trade_told_in_conversation_is_the_statements_fill(db):
    told = NewTrade("000333", "buy", 70, 500, "看好家电", "美的集团", "model", day="2025年3月3日")
    recorded = record_trade(Account(db), told, NOW.isoformat())
    assert recorded.decision.decided_at.startswith("2025-03-03")
    assert (recorded.fee, recorded.fee_estimated) == (8.75 + 0.35, True)  # 万2.5 and 0.001% of 35,000
    done = import_statement(Account(db), THS, NOW)
    assert (done.added, len(done.matched)) == (11, 1)
    # one decision for that buy (the model's, with its reason), now carrying the statement's fees
    rows = db.execute("select source, reason from decisions where symbol = '000333' and side = 'buy'").fetchall()
    assert rows == [("model", "看好家电")]
    sql = "select origin, fees, fee_estimated, decision_id from account_fills where day = '2025-03-03' and kind = 'buy'"
    assert db.execute(sql).fetchall() == [("statement", 5.35, None, recorded.decision.id)]  # no longer an estimate
    assert holdings(db)["000333"] == (290, 38.4313)  # the buy counted once


def test_a_statement_for_another_account_goes_to_a_new_account(db, tmp_path):
    import_statement(Account(db), THS, NOW)
    text = THS.read_bytes().decode("utf-8-sig").replace("0123456789", "0999999999").replace("A123456789", "A999999999")
    other = tmp_path / "other.csv"
    other.write_text(text.replace("1001", "2001").replace("70.000", "71.000"), encoding="utf-8")
    before = digest(db)
    preview = import_statement(Account(db), other, NOW, dry_run=True)
    assert (preview.broker_account, preview.created) == ("同花顺-9999", "0999999999、A999999999")
    assert digest(db) == before  # a dry run makes no account either
    done = import_statement(Account(db), other, NOW)
    assert (done.broker_account, done.several) == ("同花顺-9999", True)
    assert AccountStore(db).account_names() == ["默认账户", "同花顺-9999"]
    # both accounts' numbers in one file: refused, nothing written
    both = tmp_path / "both.csv"
    both.write_text(text + "\n".join(THS.read_bytes().decode("utf-8-sig").splitlines()[1:]) + "\n", encoding="utf-8")
    before = digest(db)
    with pytest.raises(RequestError, match="分属账户 默认账户、同花顺-9999"):
        import_statement(Account(db), both, NOW)
    assert digest(db) == before


def test_dry_run_and_a_bad_file_write_nothing(db, tmp_path):
    before = digest(db)
    preview = import_statement(Account(db), THS, NOW, dry_run=True)
    assert preview.added == 12 and [c.after for c in preview.holdings] == [290, 1300, 500]
    bad = tmp_path / "bad.csv"
    bad.write_text(THS.read_bytes().decode("utf-8-sig").replace("42.500", "四十二"), encoding="utf-8")
    with pytest.raises(StatementError, match="成交均价"):
        import_statement(Account(db), bad, NOW)
    assert digest(db) == before


def test_a_json_holding_that_disagrees_is_reported_with_both_figures(db):
    db["holdings"].insert_all(
        [
            {"symbol": "000333", "name": "美的集团", "short_names": "[]", "shares": 1000, "cost": 60.0,
             "role": "core", "updated_at": "2025-01-02T09:00:00+08:00"},
            {"symbol": "600036", "name": "招商银行", "short_names": "[]", "shares": 2000, "cost": 30.0,
             "role": "core", "updated_at": "2025-11-01T09:00:00+08:00"},
        ]
    )  # fmt: skip
    done = import_statement(Account(db), THS, NOW)
    changes = {c.symbol: (c.before, c.after, c.kept) for c in done.holdings}
    # dated before the fills: the statement's figure wins; dated after them: kept
    assert changes["000333"] == (1000, 290, False)
    assert changes["600036"] == (2000, 1300, True)
    assert holdings(db)["000333"] == (290, 38.4313) and holdings(db)["600036"] == (2000, 30.0)
    assert db.execute("select role from holdings where symbol = '000333'").fetchone() == ("core",)


def test_forgetting_a_trade_takes_its_fill_out_of_the_account(db):
    import_statement(Account(db), THS, NOW)
    recorded = record_trade(
        Account(db), NewTrade("000333", "sell", 81, 90, None, None, "user", day="昨天", fee=5), NOW.isoformat()
    )
    # the holding follows the fills: 200 left; cash 27,094.95 + 90 × 81 − 5 = 34,379.95
    assert holdings(db)["000333"][0] == 200
    assert cash(db) == 34379.95
    undo_trade(Account(db), recorded.decision.id, NOW.isoformat())
    assert cash(db) == 27094.95
    assert len(AccountStore(db).fills("000333")) == 6


def test_a_future_day_is_refused(db):
    with pytest.raises(RequestError, match="之后：不能记录未来的交易"):
        record_trade(
            Account(db), NewTrade("000333", "buy", 70, 100, None, None, "user", day="2025-08-21"), NOW.isoformat()
        )
    assert db.execute("select count(*) from decisions").fetchone() == (0,)


def test_a_sale_of_shares_bought_before_the_statement_is_reported(db, tmp_path):
    path = tmp_path / "sale_only.csv"
    lines = THS.read_bytes().decode("utf-8-sig").splitlines()
    path.write_text("\n".join([lines[0], lines[4]]) + "\n", encoding="utf-8")  # the 200 @ 75 sale alone
    done = import_statement(Account(db), path, NOW)
    (change,) = done.holdings
    assert (change.symbol, change.before, change.after, change.opening) == ("000333", None, 0, 200)
    assert "000333" not in holdings(db)


def test_the_holding_an_import_reports_is_the_one_it_writes_with_bonus_shares_it_did_not_book(db):
    """A 10送5 in the stored market data after the statement's last row of 603375 (500 new
    shares): the holding is 750 shares, and the import says so, not the rows' own 500."""
    from pixiu_cli.account.views import import_lines
    from pixiu_cli.market.bars import Bar, CorporateAction, SeriesWrite

    bars = [Bar(day, 10.0, 10.0, 10.0, 10.0, 1000.0, None, 1, False) for day in ("2025-06-02", "2025-08-19")]
    bonus = CorporateAction("603375", "2025-06-03", 0.0, 0.5, None, "import", "cash_shares", None)
    Account(db).market.bars.write_series(SeriesWrite("603375", bars, "csv", NOW.isoformat(), actions=[bonus]))
    done = import_statement(Account(db), THS, NOW)
    change = next(c for c in done.holdings if c.symbol == "603375")
    assert (change.stated, change.unbooked, change.after) == (500, 250, 750)
    assert holdings(db)["603375"][0] == 750
    assert db.execute("select shares from holdings where symbol = '603375'").fetchone() == (750,)
    lines, _ = import_lines(done)
    assert any("按对账单推算 500 股，已改为 750 股（含行情数据中对账单未记的送转股 250 股）" in x for x in lines)
    # the same import once the row stands: nothing for the import to change
    again = import_statement(Account(db), THS, NOW)
    assert again.added == 0 and [c.symbol for c in again.holdings] == []


def test_the_brief_reads_the_accounts_cash(db):
    from pixiu_cli.brief.facts import brief_facts

    assert brief_facts(Brief(db), NOW).cash is None
    import_statement(Account(db), THS, NOW)
    facts = brief_facts(Brief(db), NOW)
    assert facts.cash == 27094.95
    # no bars stored: every holding valued at its (diluted) cost, weights over stocks + cash;
    # the costs unrounded: 000333's diluted cost is 11,145.08 money in for 290 shares
    assert facts.account == account_record(read_account(Account(db), NOW))
    assert facts.account["total_assets"] == round(facts.account["stock_value"] + 27094.95, 2)


def test_the_import_finds_a_fills_twin_by_its_day_through_an_index(db):
    """Work done: each day of the statement is compared with the fills of that day only, and
    every read of the ledger the import and the account make goes through an index, so a
    statement of a million rows is never matched against the whole ledger held in memory."""
    import_statement(Account(db), THS, NOW)
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    try:
        again = import_statement(Account(db), THS, NOW)
        read_account(Account(db), NOW)
    finally:
        db.conn.set_trace_callback(None)
    assert (again.added, again.duplicates) == (0, 12)
    reads = [s for s in statements if "from account_fills where deleted_at is null" in s]
    days = [s for s in reads if "and day = '" in s]
    assert len(days) == len({f.day for f in AccountStore(db).fills()})  # one read per day of the statement
    for sql in set(reads):
        plan = " ".join(r[3] for r in db.execute(f"explain query plan {sql}").fetchall())
        assert "USING INDEX" in plan and "SCAN account_fills" not in plan, (sql, plan)


def test_a_trade_derives_its_stock_once_before_the_write_and_once_after(db, monkeypatch):
    """A told sale is checked (shares held, T+1 aside), taxed and copied to the holding from
    two derivations of the stock, both under the write lock, not five."""
    from pixiu_cli.account import overview, trades

    import_statement(Account(db), THS, NOW)
    derived = []
    original = overview.derive_positions

    def counted(account, now, symbols=None, day=None, **kwargs):
        derived.append((tuple(symbols or ()), day))
        return original(account, now, symbols, day, **kwargs)

    monkeypatch.setattr(trades, "derive_positions", counted)
    monkeypatch.setattr(overview, "derive_positions", counted)
    recorded = record_trade(
        Account(db), NewTrade("000333", "sell", 81, 90, None, None, "user", day="昨天", fee=5), NOW.isoformat()
    )
    assert recorded.held.shares == 200
    # the sale's day (T+1) is its own derivation; the position today is derived twice
    assert [d for d in derived if d[1] is None] == [(("000333",), None)] * 2, derived
