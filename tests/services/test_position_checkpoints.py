"""The account read from stored checkpoints equals the whole derivation on a real SQLite file,
through random histories of writes: statement fills written in write transactions (which
store checkpoints), fills backdated before a checkpoint or within a booked action's window
after it, fills withdrawn, corporate actions stored and removed. Each read compares
`derive_positions` (checkpoints, the fills since them) with the same call handed the whole
ledger (no checkpoint), Decimal for Decimal; the reads also count the fills they read."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pixiu_cli.account.handle import Account
from pixiu_cli.account.model import BONUS, BUY, DIVIDEND, SELL, Fill
from pixiu_cli.account.overview import derive_positions
from pixiu_cli.account.store import AccountStore
from pixiu_cli.kernel.store.database import open_database, write_transaction
from pixiu_cli.market.calendar import SHANGHAI

NOW = datetime(2025, 12, 1, 16, 0, tzinfo=SHANGHAI)
START = date(2025, 1, 2)
SYMBOLS = ("600036", "000333")


def _fill(n: int, symbol: str, kind: str, offset: int, qty: int, price: float) -> Fill:
    day = (START + timedelta(days=offset)).isoformat()
    amount = round(qty * 100 * price, 2) if kind in (BUY, SELL) else round(price * 10, 2)
    return Fill(f"f{n}", day, None, kind, symbol, None, float(qty * 100), price, amount, 5.0, None, None)


WRITE = st.tuples(
    st.sampled_from(["fill", "fill", "fill", "withdraw", "action", "unaction", "read"]),
    st.sampled_from(SYMBOLS),
    st.sampled_from([BUY, BUY, SELL, BONUS, DIVIDEND]),
    st.integers(0, 300),  # day offset: backdated and later fills both
    st.integers(1, 20),
    st.sampled_from([9.87, 12.5, 40.01]),
)


def _same(db) -> int:
    store = AccountStore(db)
    with write_transaction(db):  # a writer's read stores the checkpoints it makes
        fast = derive_positions(Account(db), NOW)
    whole = derive_positions(Account(db), NOW, fills=store.fills())
    assert fast == whole and repr(fast) == repr(whole)
    return db.conn.execute("select count(*) from position_checkpoints").fetchone()[0]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(writes=st.lists(WRITE, min_size=1, max_size=40))
def test_checkpointed_positions_equal_the_whole_derivation(tmp_path_factory, writes):
    db = open_database(tmp_path_factory.mktemp("db") / "pixiu.db")
    store = AccountStore(db)
    stored = 0
    for n, (what, symbol, kind, offset, qty, price) in enumerate(writes):
        day = (START + timedelta(days=offset)).isoformat()
        with write_transaction(db):
            if what == "fill":
                store.add_fills([_fill(n, symbol, kind, offset, qty, price)], source_file="t.csv", at="2025-12-01")
            elif what == "withdraw":
                db.conn.execute(
                    "update account_fills set deleted_at = 'x' where id = (select max(id) from account_fills "
                    "where symbol = ? and deleted_at is null)",
                    [symbol],
                )
            elif what == "action":
                db.conn.execute(
                    "insert or replace into corporate_actions (symbol, ex_date, cash_per_share, shares_per_share, "
                    "source, method) values (?, ?, ?, ?, 'import', 'cash_shares')",
                    [symbol, day, 0.3, 0.2 if qty % 2 else 0.0],
                )
            elif what == "unaction":
                db.conn.execute("delete from corporate_actions where symbol = ? and ex_date <= ?", [symbol, day])
        stored = _same(db)
    assert stored <= len(SYMBOLS)
    db.conn.close()


def test_a_read_after_an_import_reads_only_the_fills_after_each_checkpoint(tmp_path):
    """Work done, not time: 400 fills of one stock, checkpointed; a read then reads the fills
    of the last week before the checkpoint's day, and a fill backdated before it drops it."""
    db = open_database(tmp_path / "pixiu.db")
    store = AccountStore(db)
    fills = [_fill(i, "600036", BUY if i % 3 else SELL, i // 2, 1, 10.0) for i in range(400)]
    with write_transaction(db):
        store.add_fills(fills, source_file="t.csv", at="2025-12-01")
        derive_positions(Account(db), NOW)
    read: list[int] = []
    original = AccountStore.fills

    def counting(self, symbol=None, *, since=None, skipped=None):
        out = original(self, symbol, since=since, skipped=skipped)
        read.append(len(out))
        return out

    AccountStore.fills = counting
    try:
        derive_positions(Account(db), NOW)
        since = (date.fromisoformat(max(f.day for f in fills)) - timedelta(days=7)).isoformat()
        assert read == [sum(f.day >= since for f in fills)] and read[0] < 20
        with write_transaction(db):
            store.add_fills([replace(fills[0], fill_id="late")], source_file="t.csv", at="2025-12-01")
        read.clear()
        derive_positions(Account(db), NOW)
        assert read == [401]
    finally:
        AccountStore.fills = original
    db.conn.close()


def test_a_dividend_row_after_the_checkpoint_books_the_action_it_had_applied(tmp_path):
    """The action on day 10 was applied (no statement row booked it) and checkpointed on
    day 20; a dividend row on day 40 books it: the checkpoint is dropped, not resumed."""
    db = open_database(tmp_path / "pixiu.db")
    store = AccountStore(db)
    with write_transaction(db):
        store.add_fills(
            [_fill(1, "600036", BUY, 0, 10, 10.0), _fill(2, "600036", BUY, 20, 1, 10.0)], source_file="t", at="x"
        )
        db.conn.execute(
            "insert into corporate_actions (symbol, ex_date, cash_per_share, shares_per_share, source, method) "
            "values ('600036', ?, 0.5, 0, 'import', 'cash_shares')",
            [(START + timedelta(days=10)).isoformat()],
        )
        _same(db)
    assert derive_positions(Account(db), NOW)["600036"].dividends == 500
    with write_transaction(db):
        store.add_fills([_fill(3, "600036", DIVIDEND, 40, 0, 45.0)], source_file="t", at="x")
    _same(db)
    assert derive_positions(Account(db), NOW)["600036"].dividends == 445  # the row's 450 less its 5 fee
    db.conn.close()
