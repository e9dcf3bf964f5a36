"""Domain reads that were made faster must still see every change: the holdings list kept
between turns, and the latest profiles of many symbols read in one statement."""

from __future__ import annotations

import sqlite3

import pytest

from pixiu_cli.account.store import set_position
from pixiu_cli.home.store import InvestorStore
from pixiu_cli.kernel.store.database import open_database, write_transaction


def _holding(symbol: str, name: str, shares: float = 100.0) -> dict:
    return {
        "symbol": symbol,
        "name": name,
        "short_names": "[]",
        "shares": shares,
        "cost": 10.0,
        "role": "core",
        "updated_at": "2026-06-01T10:00:00+08:00",
    }


@pytest.fixture
def domain(tmp_path):
    db = open_database(tmp_path / "p.db")
    with write_transaction(db):
        db["holdings"].insert_all([_holding("600519", "贵州茅台"), _holding("600036", "招商银行")])
    yield InvestorStore(db)
    db.close()


def symbols(domain: InvestorStore) -> list[str]:
    return [h.symbol for h in domain.holdings()]


def test_a_commit_by_another_connection_is_seen(domain, tmp_path):
    assert symbols(domain) == ["600036", "600519"]
    other = sqlite3.connect(tmp_path / "p.db")
    other.execute(
        "insert into holdings (symbol, name, short_names, shares, cost, role) "
        "values ('000001', '平安银行', '[]', 10, 9.5, 'satellite')"
    )
    other.commit()
    other.execute("update holdings set shares = 999 where symbol = '600519'")
    other.commit()
    other.close()
    held = {h.symbol: h for h in domain.holdings()}
    assert set(held) == {"600036", "600519", "000001"} and held["600519"].shares == 999


def test_a_write_on_the_same_connection_is_seen(domain):
    assert len(domain.holdings()) == 2
    # a statement import writes the ledger's copy of a holding: the sold-out stock leaves
    set_position(domain.db, "600519", None, 0, None, "2026-06-02T10:00:00+08:00")
    assert symbols(domain) == ["600036"]
    with write_transaction(domain.db):
        domain.db.execute("update holdings set role = 'satellite' where symbol = '600036'")
    assert [h.role for h in domain.holdings()] == ["satellite"]


def test_a_read_inside_a_rolled_back_transaction_is_not_kept(domain):
    assert len(domain.holdings()) == 2
    with pytest.raises(RuntimeError):
        with write_transaction(domain.db):
            domain.db.execute("delete from holdings")
            assert domain.holdings() == []  # the transaction sees its own delete
            raise RuntimeError("roll back")
    assert symbols(domain) == ["600036", "600519"]


def test_the_returned_list_is_the_callers_own(domain):
    first = domain.holdings()
    first.clear()
    assert len(domain.holdings()) == 2


def test_profiles_for_many_symbols_take_each_ones_latest(domain):
    rows = [
        ("600519", "a", "2026-01-01"),
        ("600519", "b", "2026-05-01"),
        ("600519", "c", "2026-03-01"),
        ("600036", "d", "2026-02-01"),
        ("600036", "e", "2026-02-01"),
    ]  # same day: the higher id wins
    with write_transaction(domain.db):
        domain.db["profiles"].insert_all([{"symbol": s, "strategy": k, "as_of": d} for s, k, d in rows])
    got = domain.profiles_for(["600036", "000001", "600519", "600036"])
    assert list(got) == ["600036", "600519"]
    assert {s: p.strategy for s, p in got.items()} == {"600036": "e", "600519": "b"}
    assert got == {s: domain.latest_profile(s) for s in ("600036", "600519")}
    assert domain.profiles_for([]) == {}


def test_portfolio_reads_survive_conversation_writes_but_not_trades(tmp_path):
    from datetime import datetime

    from pixiu_cli.account.store import set_position
    from pixiu_cli.conversation.store import ConversationStore
    from pixiu_cli.home.document_file import SHANGHAI
    from pixiu_cli.home.model import Holding
    from pixiu_cli.home.store import InvestorStore
    from pixiu_cli.kernel.store.database import open_database

    db = open_database(tmp_path / "v.db")
    domain = InvestorStore(db)
    db["holdings"].insert(
        {"symbol": "600519", "name": "贵州茅台", "short_names": "[]", "shares": 100.0, "cost": 1600.0, "role": "core"}
    )
    first = domain.holdings()
    store = ConversationStore(db)
    store.start_turn(store.create_conversation().id, "一轮对话的写入")
    queries = []
    db.conn.set_trace_callback(queries.append)
    assert domain.holdings() == first
    assert not any("from holdings" in q for q in queries)  # reused: a turn is not a portfolio change
    set_position(db, "600519", None, 200.0, 1550.0, datetime.now(SHANGHAI).isoformat())
    after = domain.holdings()
    assert after != first and after[0].shares == 200.0
    assert isinstance(after[0], Holding)
