"""The account's fills and cash in the database (SQL only; the arithmetic is in
domain/ledger.py, the use cases in services/account.py)."""

from __future__ import annotations

from dataclasses import asdict

from sqlite_utils import Database

from pixiu_cli.domain.account import CashBalance, Fill
from pixiu_cli.store.rows import dict_rows, number, record

_FILL_COLUMNS = tuple(f for f in Fill.__dataclass_fields__ if f not in ("recorded_at", "seq"))


# Money columns an older statement import left NULL on cash rows: they read as 0.
_ZERO_WHEN_NULL = ("quantity", "price", "amount", "fees")


def _fill(r: dict) -> Fill:
    """A ledger row as its Fill, every field read by its declared type (store/rows.py): a field
    added to Fill is read without a line here."""
    lenient = {k: number(r[k]) or 0.0 for k in _ZERO_WHEN_NULL}
    return record(Fill, r, "account_fills", seq=r["id"], origin=r["origin"] or "statement", **lenient)


_ORDER = "order by day, coalesce(time, ''), id"


class AccountStore:
    def __init__(self, db: Database):
        self.db = db

    def fills(self, symbol: str | None = None) -> list[Fill]:
        """Live fills in the order they happened (day, time, then the order recorded)."""
        where, params = "deleted_at is null", []
        if symbol:
            where += " and symbol = ?"
            params.append(symbol)
        return [_fill(r) for r in dict_rows(self.db, f"select * from account_fills where {where} {_ORDER}", params)]

    def version(self) -> tuple:
        """Changes with every write to the ledger or the stated balances (the account is
        derived again only then)."""
        fills = self.db.conn.execute(
            "select count(*), coalesce(max(id), 0), max(deleted_at), max(recorded_at) from account_fills"
        ).fetchone()
        cash = self.db.conn.execute("select count(*), coalesce(max(id), 0) from account_cash").fetchone()
        return (*fills, *cash)

    def accounts(self) -> set[str]:
        rows = dict_rows(self.db, "select distinct account from account_fills where account is not null")
        return {r["account"] for r in rows}

    def add_fill(self, fill: Fill, *, source_file: str | None, at: str) -> None:
        # one plain INSERT: sqlite-utils' insert() reads the table's schema on every call,
        # which a statement of thousands of fills would pay thousands of times
        row = {**{k: v for k, v in asdict(fill).items() if k in _FILL_COLUMNS}, "source_file": source_file}
        row["recorded_at"] = at
        self.db.conn.execute(
            f"insert into account_fills ({', '.join(row)}) values ({', '.join('?' * len(row))})", list(row.values())
        )

    def take_over(self, manual: Fill, statement: Fill, *, source_file: str | None, at: str) -> None:
        """A fill told one at a time is the statement's fill: it takes the statement's id,
        fees and balance and keeps its decision."""
        row = {k: v for k, v in asdict(statement).items() if k in _FILL_COLUMNS and k != "decision_id"}
        self.db.conn.execute(
            f"update account_fills set {', '.join(f'{k} = ?' for k in row)}, source_file = ?, recorded_at = ? "
            "where fill_id = ?",
            [*row.values(), source_file, at, manual.fill_id],
        )

    def link_decision(self, fill_id: str, decision_id: int) -> None:
        self.db.conn.execute("update account_fills set decision_id = ? where fill_id = ?", [decision_id, fill_id])

    # cash -------------------------------------------------------------------------------
    def set_cash(self, cash: CashBalance, at: str) -> None:
        last = self.db.conn.execute("select coalesce(max(id), 0) from account_fills").fetchone()[0]
        self.db["account_cash"].insert(
            {"amount": cash.amount, "as_of": cash.as_of, "source": cash.source, "set_at": at, "fills_before": last}
        )

    def cash(self, through: str | None = None) -> CashBalance | None:
        """The latest statement of the balance: by its day, then the one said last; with
        `through` (a day), none dated after it (a balance from the future pins nothing)."""
        where, params = ("where as_of <= ?", [through]) if through else ("", [])
        rows = dict_rows(self.db, f"select * from account_cash {where} order by as_of desc, id desc limit 1", params)
        if not rows:
            return None
        r = rows[0]
        return record(CashBalance, r, "account_cash", amount=number(r["amount"]) or 0.0)
