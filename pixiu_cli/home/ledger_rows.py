"""The account's ledger as a document's rows (`pixiu export`, `pixiu import`): every live
fill and every stated cash balance, by column name, so a column added to either table
later travels with no change here. A fill names its decision by the id the document gives
it and is stored under the id that decision has in this database."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from sqlite_utils import Database

from pixiu_cli.home.model import AccountLedger
from pixiu_cli.kernel.db.rows import dict_rows

FILLS, CASH = "account_fills", "account_cash"
PARTS = (("fills", FILLS), ("cash", CASH))
_INTERNAL = {FILLS: ("id", "deleted_at"), CASH: ("id",)}  # where a row sits, not what it says
# The fill id of a trade told one at a time (store/portfolio.py) is made of its decision's
# id: it follows the decision to its id here, or a later trade's fill would take it.
_MANUAL = "manual-{}"


@dataclass(frozen=True)
class LedgerMerge:
    fills_added: int = 0
    fills_kept: int = 0  # the same fill_id already stored: left as it is
    fills_withdrawn: int = 0  # of those: fills withdrawn here (/forget), never brought back
    cash_added: int = 0
    cash_kept: int = 0


def export_ledger(db: Database) -> AccountLedger:
    """Live fills in the order they were recorded, each balance as stated; a link to a
    decision withdrawn since is left out."""
    live = {r[0] for r in db.conn.execute("select id from decisions where deleted_at is null")}
    fills = []
    for row in dict_rows(db, f"select * from {FILLS} where deleted_at is null order by id"):
        if row.get("decision_id") not in live:
            row["decision_id"] = None
        fills.append(_described(FILLS, row))
    cash = [_described(CASH, row) for row in dict_rows(db, f"select * from {CASH} order by id")]
    return AccountLedger(tuple(fills), tuple(cash))


def _described(table: str, row: dict) -> dict:
    return {k: v for k, v in row.items() if k not in _INTERNAL[table] and v is not None}


def unknown_columns(db: Database, ledger: AccountLedger) -> list[str]:
    """Fields of the document's rows this database has no column for (`account.fills[3].x`)."""
    found = []
    for part, table in PARTS:
        known = {r[1] for r in db.conn.execute(f"pragma table_info({table})")} - set(_INTERNAL[table])
        found += [
            f"account.{part}[{i}].{k}" for i, row in enumerate(getattr(ledger, part)) for k in row if k not in known
        ]
    return found


def insert_row(db: Database, table: str, row: dict) -> int:
    """One plain INSERT of `row` (column → value); the new row's id."""
    names = ", ".join(f'"{k}"' for k in row)
    cursor = db.conn.execute(f"insert into {table} ({names}) values ({', '.join('?' * len(row))})", list(row.values()))
    return cursor.lastrowid


def _relinked(row: dict, decisions: dict[int, int]) -> dict:
    """The fill with its decision under that decision's id in this database."""
    old = row.get("decision_id")
    if old is None:
        return row
    new = decisions.get(old)
    row = {**row, "decision_id": new}
    if new is not None and row.get("origin") == "manual" and row["fill_id"] == _MANUAL.format(old):
        row["fill_id"] = _MANUAL.format(new)
    return row


def replace_ledger(db: Database, ledger: AccountLedger, decisions: dict[int, int]) -> None:
    """The account becomes the document's (in the caller's transaction); `decisions` maps
    the document's decision ids to the stored ones."""
    db.execute(f"delete from {FILLS}")
    db.execute(f"delete from {CASH}")
    for row in ledger.fills:
        insert_row(db, FILLS, _relinked(row, decisions))
    for row in ledger.cash:
        insert_row(db, CASH, row)


def merge_ledger(db: Database, ledger: AccountLedger, decisions: dict[int, int]) -> LedgerMerge:
    """Fills by fill_id (one already stored, or withdrawn here, is left alone); balances by
    all they say, pairing equal rows in order, so the same file twice adds nothing."""
    stored = dict(db.conn.execute(f"select fill_id, deleted_at from {FILLS}").fetchall())
    added = kept = withdrawn = 0
    for row in ledger.fills:
        row = _relinked(row, decisions)
        if row["fill_id"] not in stored:
            insert_row(db, FILLS, row)
            stored[row["fill_id"]] = None
            added += 1
        else:
            kept += 1
            withdrawn += stored[row["fill_id"]] is not None
    have = Counter(_cash_key(_described(CASH, r)) for r in dict_rows(db, f"select * from {CASH}"))
    cash_added = 0
    for row in ledger.cash:
        if have[_cash_key(row)] > 0:
            have[_cash_key(row)] -= 1
            continue
        insert_row(db, CASH, row)
        cash_added += 1
    return LedgerMerge(added, kept, withdrawn, cash_added, len(ledger.cash) - cash_added)


def _cash_key(row: dict) -> tuple:
    return tuple(sorted(row.items()))
