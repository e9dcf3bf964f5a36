"""The trade history the block shows (issue 38): the ledger's fills over a span and what the
span realised, stock by stock — the ledger's own realised P&L at the span's end less that of
the day before it, never a second computation."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

import pytest

from pixiu_cli.account.handle import Account
from pixiu_cli.account.overview import trade_history
from pixiu_cli.home.document_file import parse_document
from pixiu_cli.home.store import InvestorStore
from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.calendar import SHANGHAI
from tests.helpers import fill_row

NOW = datetime(2026, 11, 25, 20, 30, tzinfo=SHANGHAI)


# 600028: 2,000 bought at 5.00 (+10.00 fees: 10,010.00 in, 5.005 a share); 500 sold on 10-10 at
# 6.00 (−5.00); a dividend of 300.00 on 10-20; 500 sold on 11-05 at 6.50 (−5.00).
# 601328: 1,000 bought at 7.00 (+5.00), all sold on 10-12 at 6.50 (−6.50): closed at a loss.
FILLS = [
    fill_row("a1", "2026-09-01", "buy", "600028", 2000, 5.0, 10.0),
    fill_row("a2", "2026-10-10", "sell", "600028", 500, 6.0, 5.0),
    fill_row("a3", "2026-10-20", "dividend", "600028", 0, 0, 0.0, amount=300.0),
    fill_row("a4", "2026-11-05", "sell", "600028", 500, 6.5, 5.0),
    fill_row("b1", "2026-09-02", "buy", "601328", 1000, 7.0, 5.0),
    fill_row("b2", "2026-10-12", "sell", "601328", 1000, 6.5, 6.5),
]


@pytest.fixture
def db(tmp_path):
    db = open_database(tmp_path / "pixiu.db")
    InvestorStore(db).replace_all(parse_document({"account": {"fills": FILLS}}, NOW))
    yield db
    db.conn.close()


def test_october_realised_stock_by_stock(db):
    history = trade_history(Account(db), NOW, date(2026, 10, 1), date(2026, 10, 31))
    assert [(f.line.day, f.line.symbol) for f in history.fills] == [
        ("2026-10-10", "600028"),
        ("2026-10-12", "601328"),
        ("2026-10-20", "600028"),
    ]
    realised = {r.symbol: (r.amount, r.closed) for r in history.realised}
    # 600028: 500 × 6.00 − 5.00 − 500 × 5.005 = 2,995.00 − 2,502.50 = 492.50, and the dividend 300.00
    assert realised["600028"] == (Decimal("792.50"), False)
    # 601328: 1,000 × 6.50 − 6.50 − 7,005.00 = −511.50, nothing left
    assert realised["601328"] == (Decimal("-511.50"), True)


def test_a_span_counts_only_what_it_realised(db):
    history = trade_history(Account(db), NOW, date(2026, 11, 1), None)
    # November: 500 × 6.50 − 5.00 − 500 × 5.005 = 3,245.00 − 2,502.50 = 742.50
    assert [(r.symbol, r.amount) for r in history.realised] == [("600028", Decimal("742.50"))]


def test_one_stocks_whole_history_and_the_newest_fills_first_left_out(db):
    history = trade_history(Account(db), NOW, None, None, ["600028"], limit=2)
    assert [f.line.day for f in history.fills] == ["2026-10-20", "2026-11-05"] and history.left_out == 2
    # all of it: 492.50 + 300.00 + 742.50 = 1,535.00
    assert [(r.symbol, r.amount) for r in history.realised] == [("600028", Decimal("1535.00"))]
