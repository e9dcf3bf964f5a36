"""The account's fills and cash in the database (SQL only; the arithmetic is in
domain/ledger.py, the use cases in services/account.py).

Trades the user reports, and undoing them: the decision row, its memory event and its
fill in the account's ledger; and the holding row the ledger's derivation leaves."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict

from pixiu_cli.account.ledger import Checkpoint
from pixiu_cli.account.model import BrokerAccount, CashBalance, Fill, UndoneTrade
from pixiu_cli.home.model import Decision, decision_from_row, holding_from_row
from pixiu_cli.kernel.store.database import Database, write_transaction
from pixiu_cli.kernel.store.rows import (
    SkippedRow,
    dict_rows,
    json_column,
    number,
    readable,
    record,
    skip_or_refuse,
    unreadable,
)
from pixiu_cli.kernel.vocabulary import decision_author, is_finite_number
from pixiu_cli.market.plausible import CASH_BOUNDS, LEDGER_BOUNDS, MAX_MONEY, MAX_PRICE, MAX_SHARES
from pixiu_cli.memory.model import trade_text

# a statement's fill is never an estimate: only the record path (store/portfolio.py) sets fee_estimated
_FILL_COLUMNS = tuple(f for f in Fill.__dataclass_fields__ if f not in ("recorded_at", "seq", "fee_estimated"))


# Money columns an older statement import left NULL on cash rows: they read as 0.
_ZERO_WHEN_NULL = ("quantity", "price", "amount", "fees")


def _fill(r: dict) -> Fill:
    """A ledger row (every number readable: `unreadable` said so) as its Fill, every field read
    by its declared type (store/rows.py): a field added to Fill is read without a line here."""
    lenient = {k: number(r[k]) or 0.0 for k in _ZERO_WHEN_NULL}
    given = {k: number(r[k]) for k in LEDGER_BOUNDS.keys() - _ZERO_WHEN_NULL}  # the others: NULL stays
    return record(Fill, r, "account_fills", seq=r["id"], origin=r["origin"] or "statement", **lenient, **given)


_ORDER = "order by day, coalesce(time, ''), id"
# the columns a Fill reads, in its fields' order, with the row id (its seq) last
_SELECT = ", ".join(f for f in Fill.__dataclass_fields__ if f != "seq") + ", id"


def _plain(row: tuple) -> Fill | None:
    """The row as its Fill when every value already has its field's type (what pixiu writes):
    the per-field readers of `_fill` cost more than the rest of reading a large ledger."""
    (fill_id, day, time, kind, symbol, name, quantity, price, amount, fees, cash_change, balance, account,
     contract, origin, decision_id, recorded_at, contract_kind, fee_estimated, broker_account, seq) = row  # fmt: skip
    for value, bound in ((quantity, MAX_SHARES), (price, MAX_PRICE), (amount, MAX_MONEY), (fees, MAX_MONEY)):
        if type(value) is not float or not readable(value, bound):
            return None
    for value in (cash_change, balance):
        if value is not None and (type(value) is not float or not readable(value, MAX_MONEY)):
            return None
    for value in (
        fill_id,
        day,
        time,
        kind,
        symbol,
        name,
        account,
        contract,
        recorded_at,
        contract_kind,
        broker_account,
    ):
        if value is not None and type(value) is not str:
            return None
    if type(fill_id) is not str or type(day) is not str or type(kind) is not str or fee_estimated not in (None, 1):
        return None
    if (decision_id is not None and type(decision_id) is not int) or type(origin) not in (str, type(None)):
        return None
    return Fill(
        fill_id, day, time, kind, symbol, name, quantity, price, amount, fees, cash_change, balance, account,
        contract, origin or "statement", decision_id, recorded_at, seq, contract_kind, bool(fee_estimated),
        broker_account,
    )  # fmt: skip


class AccountStore:
    """The fills and balances of every broker account, or, built with `broker_account` (a
    name), of that one only: its reads see, and its writes go to, that account."""

    def __init__(self, db: Database, broker_account: str | None = None):
        self.db = db
        self.broker_account = broker_account

    def fills(
        self,
        symbol: str | None = None,
        *,
        since: str | None = None,
        on: str | None = None,
        kind: str | None = None,
        skipped: list[SkippedRow] | None = None,
        broker_account: str | None = None,
    ) -> list[Fill]:
        """Live fills in the order they happened (day, time, then the order recorded); with
        `since` (a day), only those dated on it or later; with `on`, those of that day; with
        `kind`, those of that kind; with `broker_account` (or the store's own), that account's.
        A row with a number no account could hold is refused (StoredValueError), or, with
        `skipped` (a read), left out and added to it."""
        where, params = "deleted_at is null", []
        clauses = (
            (" and broker_account = ?", broker_account or self.broker_account),
            (" and symbol = ?", symbol),
            (" and day >= ?", since),
            (" and day = ?", on),
            (" and kind = ?", kind),
        )
        for clause, value in clauses:
            if value:
                where += clause
                params.append(value)
        cursor = self.db.conn.execute(f"select {_SELECT} from account_fills where {where} {_ORDER}", params)
        out = []
        for row in cursor:
            fill = _plain(row)
            if fill is None:
                fill = self._checked(row[-1], skipped)
            if fill is not None:
                out.append(fill)
        return out

    def _checked(self, row_id: int, skipped: list[SkippedRow] | None) -> Fill | None:
        r = dict_rows(self.db, "select * from account_fills where id = ?", [row_id])[0]
        bad = unreadable("account_fills", str(row_id), r, LEDGER_BOUNDS)
        if bad is None:
            return _fill(r)
        skip_or_refuse(bad, skipped)
        return None

    def last_id(self) -> int:
        return self.db.conn.execute("select coalesce(max(id), 0) from account_fills").fetchone()[0]

    def symbols(self, broker_account: str | None = None) -> list[str]:
        """The stocks the ledger (of `broker_account`, or the store's own) has fills of
        (withdrawn ones may be among them: their fills read as none). One probe of an index
        per stock: `select distinct` with the live filter reads every row of a large ledger."""
        name = broker_account or self.broker_account
        if name is None:
            rows = self.db.conn.execute(
                "with recursive s(symbol) as (select min(symbol) from account_fills union all "
                "select (select min(symbol) from account_fills where symbol > s.symbol) from s "
                "where s.symbol is not null) select symbol from s where symbol is not null"
            )
        else:
            rows = self.db.conn.execute(
                "with recursive s(symbol) as (select min(symbol) from account_fills where broker_account = ?1 "
                "union all select (select min(symbol) from account_fills where broker_account = ?1 "
                "and symbol > s.symbol) from s where s.symbol is not null) select symbol from s where symbol is not null",
                [name],
            )
        return [r[0] for r in rows]

    def version(self) -> tuple:
        """Changes with every write to the ledger or the stated balances (the account is
        derived again only then)."""
        fills = self.db.conn.execute(
            "select count(*), coalesce(max(id), 0), max(deleted_at), max(recorded_at) from account_fills"
        ).fetchone()
        # the accounts in the same statement: one more account is a new way to add them up
        cash = self.db.conn.execute(
            "select count(*), coalesce(max(id), 0), (select count(*) from broker_accounts) from account_cash"
        ).fetchone()
        return (*fills, *cash)

    # the broker accounts ---------------------------------------------------------------------
    def broker_accounts(self) -> list[BrokerAccount]:
        """Every account, the default (the first) first."""
        rows = self.db.conn.execute(
            "select name, broker, fund_account, shareholder_codes from broker_accounts order by id"
        )
        return [
            BrokerAccount(name, broker, fund, tuple(c for c in json_column(codes, []) if isinstance(c, str)))
            for name, broker, fund, codes in rows
        ]

    def account_names(self) -> list[str]:
        return [r[0] for r in self.db.conn.execute("select name from broker_accounts order by id")]

    def add_broker_account(self, account: BrokerAccount, at: str) -> None:
        self.db.conn.execute(
            "insert into broker_accounts (name, broker, fund_account, shareholder_codes, created_at) "
            "values (?, ?, ?, ?, ?)",
            [account.name, account.broker, account.fund_account, _codes(account.shareholder_codes), at],
        )

    def note_numbers(self, name: str, broker: str | None, fund_account: str | None, codes: frozenset[str]) -> None:
        """The account's numbers as a statement of it names them: its codes gain the new ones,
        its broker and 资金账号 are filled in where unknown."""
        known = next((a for a in self.broker_accounts() if a.name == name), None)
        if known is None:
            return
        self.db.conn.execute(
            "update broker_accounts set broker = coalesce(broker, ?), fund_account = coalesce(fund_account, ?), "
            "shareholder_codes = ? where name = ?",
            [broker, fund_account, _codes(set(known.shareholder_codes) | codes), name],
        )

    def add_fill(self, fill: Fill, *, source_file: str | None, at: str) -> None:
        # one plain INSERT: sqlite-utils' insert() reads the table's schema on every call,
        # which a statement of thousands of fills would pay thousands of times
        row = {**{k: v for k, v in asdict(fill).items() if k in _FILL_COLUMNS}, "source_file": source_file}
        row["broker_account"] = fill.broker_account or self.broker_account
        row["recorded_at"] = at
        self.db.conn.execute(
            f"insert into account_fills ({', '.join(row)}) values ({', '.join('?' * len(row))})", list(row.values())
        )

    def add_fills(self, fills: list[Fill], *, source_file: str | None, at: str) -> None:
        """`add_fill` for many fills: one prepared INSERT run over all of them."""
        names = [*_FILL_COLUMNS, "source_file", "recorded_at"]
        mine = self.broker_account
        rows = [
            (
                *(getattr(f, k) or mine if k == "broker_account" else getattr(f, k) for k in _FILL_COLUMNS),
                source_file,
                at,
            )
            for f in fills
        ]
        self.db.conn.executemany(
            f"insert into account_fills ({', '.join(names)}) values ({', '.join('?' * len(names))})", rows
        )

    def take_over(self, stored: Fill, statement: Fill, *, source_file: str | None, at: str) -> None:
        """A stored fill is the statement's fill: it takes the statement's id, fees and balance
        and keeps its decision (a trade told one at a time, half of an allotment joined)."""
        row = {k: v for k, v in asdict(statement).items() if k in _FILL_COLUMNS and k != "decision_id"}
        row["broker_account"] = statement.broker_account or stored.broker_account or self.broker_account
        self.db.conn.execute(
            f"update account_fills set {', '.join(f'{k} = ?' for k in row)}, source_file = ?, recorded_at = ?, "
            "fee_estimated = null where fill_id = ? and deleted_at is null",
            [*row.values(), source_file, at, stored.fill_id],
        )

    # checkpoints (the triggers of schema.py m034 drop those a change of the ledger alters) --
    def checkpoints(self, symbols: list[str]) -> dict[str, Checkpoint]:
        """The store's account's (or, for the whole ledger of a home of one account, those
        kept under no name)."""
        out = {}
        for start in range(0, len(symbols), 500):
            part = symbols[start : start + 500]
            rows = self.db.conn.execute(
                "select symbol, through, state from position_checkpoints where broker_account = ? "
                f"and symbol in ({', '.join('?' * len(part))})",
                [self.broker_account or "", *part],
            )
            out.update({r[0]: Checkpoint(*r) for r in rows if all(type(v) is str for v in r)})
        return out

    def save_checkpoints(self, checkpoints: list[Checkpoint]) -> None:
        """Inside a writer's transaction (an import, a trade) only: a read never takes the write
        lock for a cache."""
        if not self.db.conn.in_transaction:
            return
        self.db.conn.executemany(
            "insert or replace into position_checkpoints (broker_account, symbol, through, state) values (?, ?, ?, ?)",
            [(self.broker_account or "", c.symbol, c.through, c.state) for c in checkpoints],
        )

    # cash -------------------------------------------------------------------------------
    def set_cash(self, cash: CashBalance, at: str) -> None:
        last = self.db.conn.execute("select coalesce(max(id), 0) from account_fills").fetchone()[0]
        self.db["account_cash"].insert(
            {
                "amount": cash.amount,
                "as_of": cash.as_of,
                "source": cash.source,
                "set_at": at,
                "fills_before": last,
                "broker_account": cash.broker_account or self.broker_account,
            }
        )

    def cash_statements(self, broker_account: str | None = None) -> list[CashBalance]:
        """Every balance stated (of `broker_account`, or the store's own, or every account's),
        by its day, those of one day in the order they were said; one whose amount is no
        balance is passed over."""
        out = []
        name = broker_account or self.broker_account
        where, params = ("where broker_account = ?", [name]) if name else ("", [])
        for r in dict_rows(self.db, f"select * from account_cash {where} order by as_of, id", params):
            if unreadable("account_cash", str(r["id"]), r, CASH_BOUNDS) is None:
                out.append(record(CashBalance, r, "account_cash", amount=number(r["amount"]) or 0.0))
        return out

    def add_transfer(self, kind: str, amount: float, day: str, at: str) -> Fill:
        """Money moved between the bank and the account as the user told it (origin manual),
        in the store's account (else the default one)."""
        signed = amount if kind == "transfer_in" else -amount
        last = self.db.conn.execute("select coalesce(max(id), 0) from account_fills").fetchone()[0]
        fill_id = f"manual-{kind}-{last + 1}"
        self.db.conn.execute(
            "insert into account_fills (fill_id, day, kind, quantity, price, amount, fees, cash_change, origin, "
            "recorded_at, broker_account) values (?, ?, ?, 0, 0, ?, 0, ?, 'manual', ?, ?)",
            [fill_id, day, kind, amount, signed, at, self.broker_account],
        )
        return next(f for f in self.fills(on=day, kind=kind) if f.fill_id == fill_id)

    def has_transfers(self, broker_account: str | None = None) -> bool:
        name = broker_account or self.broker_account
        mine = " and broker_account = ?" if name else ""
        return (
            self.db.conn.execute(
                "select 1 from account_fills where deleted_at is null and kind in ('transfer_in', 'transfer_out')"
                f"{mine} limit 1",
                [name] if name else [],
            ).fetchone()
            is not None
        )

    # the value series (account/performance.py), kept while what it was derived from is unchanged
    def stored_series(self, scope: str, key: str) -> str | None:
        row = self.db.conn.execute(
            "select series from account_value_series where scope = ? and key = ?", [scope, key]
        ).fetchone()
        return row[0] if row else None

    def keep_series(self, scope: str, key: str, series: str) -> None:
        """Best effort: a home opened read-only, or busy with another writer, derives again next time."""
        try:
            with write_transaction(self.db):
                self.db.conn.execute(
                    "insert or replace into account_value_series (scope, key, series) values (?, ?, ?)",
                    [scope, key, series],
                )
        except sqlite3.OperationalError:
            pass

    def cash(
        self, through: str | None = None, skipped: list[SkippedRow] | None = None, broker_account: str | None = None
    ) -> CashBalance | None:
        """The latest statement of the balance (of `broker_account`, or the store's own, or
        any when neither names one): by its day, then the one said last; with `through` (a
        day), none dated after it (a balance from the future pins nothing). One whose amount
        is no balance is refused, or, with `skipped` (a read), passed over for the one stated
        before it."""
        clauses, params = [], []
        for clause, value in (("as_of <= ?", through), ("broker_account = ?", broker_account or self.broker_account)):
            if value:
                clauses.append(clause)
                params.append(value)
        where = f"where {' and '.join(clauses)}" if clauses else ""
        for r in dict_rows(self.db, f"select * from account_cash {where} order by as_of desc, id desc", params):
            bad = unreadable("account_cash", str(r["id"]), r, CASH_BOUNDS)
            if bad is None:
                return record(CashBalance, r, "account_cash", amount=number(r["amount"]) or 0.0)
            skip_or_refuse(bad, skipped)
        return None


class PortfolioStore:
    """Trades the user reports (a decision row, a memory event and a fill) and undoing one;
    built with `broker_account`, their fills go to that account (else to the default one)."""

    def __init__(self, db: Database, broker_account: str | None = None):
        self.db = db
        self.broker_account = broker_account

    def _holding_row(self, symbol: str) -> dict | None:
        rows = dict_rows(self.db, "select * from holdings where symbol = ?", [symbol])
        return rows[0] if rows else None

    def record_trade(
        self,
        *,
        symbol: str,
        side: str,
        price: float,
        quantity: float,
        reason: str | None,
        at: str,
        source: str,
        fee: float = 0.0,
        decided_at: str | None = None,
        name: str | None = None,
        fee_estimated: bool = False,
    ) -> Decision:
        """The decision, its memory event and its fill in the ledger; the holding is the
        ledger's to derive (services/trades.py). `decided_at`: when the trade happened
        (default `at`, when it is told). Call inside a transaction."""
        if not (is_finite_number(price) and is_finite_number(quantity) and price > 0 and quantity > 0):
            raise ValueError(f"价格和数量应为正的有限数字，而不是 {price!r} 和 {quantity!r}")
        if not (is_finite_number(fee) and fee >= 0):
            raise ValueError(f"费用应为非负的有限数字，而不是 {fee!r}")
        if not is_finite_number(price * quantity + fee):
            raise ValueError("数值过大，无法计算成交金额")
        decided_at = decided_at or at
        cursor = self.db.conn.execute(
            "insert into decisions (symbol, side, price, quantity, reason, decided_at, source) "
            "values (?, ?, ?, ?, ?, ?, ?)",
            [symbol, side, price, quantity, reason, decided_at, source],
        )
        decision_id = cursor.lastrowid
        self.db.conn.execute(
            "insert into memory_events (kind, symbol, source, author, created_at, inject_count, text, decision_id) "
            "values ('decision', ?, ?, ?, ?, 0, ?, ?)",
            [
                symbol,
                source,
                decision_author(source),
                at,
                trade_text(side, symbol, quantity, price, reason),
                decision_id,
            ],
        )
        self._add_fill(decision_id, symbol, side, price, quantity, fee, decided_at, name, at, fee_estimated)
        return decision_from_row(dict_rows(self.db, "select * from decisions where id = ?", [decision_id])[0])

    def statement_decisions(self, fills: list) -> list[int]:
        """A statement's buys and sells as decisions on their real days (for `pixiu track`), in
        one prepared INSERT; their ids in order.
        Under the caller's write lock the new rows are the ones above the largest id before."""
        before = self.db.conn.execute("select coalesce(max(id), 0) from decisions").fetchone()[0]
        self.db.conn.executemany(
            "insert into decisions (symbol, side, price, quantity, decided_at, source) values (?, ?, ?, ?, ?, 'statement')",
            [(f.symbol, f.kind, f.price, f.quantity, f"{f.day}T{f.time or '00:00:00'}+08:00") for f in fills],
        )
        ids = [r[0] for r in self.db.conn.execute("select id from decisions where id > ? order by id", [before])]
        if len(ids) != len(fills):
            raise RuntimeError("decisions were written by another connection inside this transaction")
        return ids

    def _add_fill(self, decision_id, symbol, side, price, quantity, fee, decided_at, name, at, fee_estimated) -> None:
        """The trade in the account's ledger too (origin manual), so its cost and cash count
        and the same fill in a later statement is recognised as this one."""
        amount = round(price * quantity, 2)
        self.db.conn.execute(
            "insert into account_fills (fill_id, day, time, kind, symbol, name, quantity, price, amount, fees, "
            "cash_change, origin, decision_id, recorded_at, fee_estimated, broker_account) "
            "values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'manual', ?, ?, ?, ?)",
            [
                f"manual-{decision_id}",
                decided_at[:10],
                decided_at[11:19] or None,
                side,
                symbol,
                name,
                quantity,
                price,
                amount,
                fee,
                round(-(amount + fee) if side == "buy" else amount - fee, 2),
                decision_id,
                at,
                1 if fee_estimated else None,
                self.broker_account,
            ],
        )

    def undo_trade(self, decision_id: int, at: str) -> UndoneTrade | None:
        """Withdraw a decision: its fill leaves the ledger (which then derives the holding).
        A trade recorded before the ledger kept holdings moved a stated holding row itself:
        that move is reversed, exactly when nothing changed the row since, else by arithmetic.
        Raises ValueError when the reversal is impossible (shares sold since the buy). Call
        inside a transaction."""
        rows = dict_rows(self.db, "select * from decisions where id = ? and deleted_at is null", [decision_id])
        if not rows:
            return None
        row = rows[0]
        moved = row["holding_before"] is not None or row["holding_after"] is not None
        stated = self._holding_row(row["symbol"])
        if moved and (stated is None or stated.get("basis") != "ledger"):
            self._reverse(row, at)
        self.db.conn.execute("update decisions set deleted_at = ? where id = ?", [at, decision_id])
        fills = self.db.conn.execute(
            "update account_fills set deleted_at = ? where decision_id = ? and origin = 'manual' "
            "and deleted_at is null",
            [at, decision_id],
        ).rowcount
        self.db.conn.execute(
            "update memory_events set deleted_at = ? where decision_id = ? and deleted_at is null", [at, decision_id]
        )
        now = self._holding_row(row["symbol"])
        return UndoneTrade(decision_from_row(row), holding_from_row(now) if now else None, moved or fills > 0)

    def _reverse(self, row: dict, at: str) -> None:
        symbol, quantity, price = row["symbol"], row["quantity"], row["price"]
        before = json.loads(row["holding_before"]) if row["holding_before"] else None
        after = json.loads(row["holding_after"]) if row["holding_after"] else None
        current = self._holding_row(symbol)
        untouched = (current is None and after is None) or (
            current is not None
            and after is not None
            and (current["shares"], current["cost"]) == (after["shares"], after["cost"])
        )
        if untouched:
            self._put(symbol, before)
            return
        if row["side"] == "buy":
            if current is None or current["shares"] < quantity:
                held = 0 if current is None else current["shares"]
                raise ValueError(
                    f"无法撤销这笔买入：现在只持有 {held:g} 股，少于买入的 {quantity:g} 股"
                    "（之后有卖出，请先撤销那笔卖出）"
                )
            shares = current["shares"] - quantity
            if shares == 0:
                self._put(symbol, None)
                return
            cost = (current["shares"] * current["cost"] - quantity * price) / shares
            self._put(symbol, {**current, "shares": shares, "cost": round(max(cost, 0.0), 4), "updated_at": at})
        else:
            base = (
                current
                or before
                or {
                    "symbol": symbol,
                    "name": symbol,
                    "short_names": "[]",
                    "cost": price,
                    "role": "satellite",
                    "shares": 0,
                }
            )
            self._put(symbol, {**base, "shares": (current["shares"] if current else 0) + quantity, "updated_at": at})

    def _put(self, symbol: str, holding: dict | None) -> None:
        self.db.conn.execute("delete from holdings where symbol = ?", [symbol])
        if holding is not None:
            self.db["holdings"].insert(holding)


def _codes(codes) -> str:
    return json.dumps(sorted(codes), ensure_ascii=False)


def set_position(db: Database, symbol: str, name: str | None, shares: float, cost: float | None, as_of: str) -> None:
    """The holding row as the ledger leaves it (shares 0: no holding), marked as the ledger's
    copy; its role and short names stay as they were."""
    rows = dict_rows(db, "select * from holdings where symbol = ?", [symbol])
    if shares <= 0 or cost is None:
        db.execute("delete from holdings where symbol = ?", [symbol])
    elif rows:
        db["holdings"].update(symbol, {"shares": shares, "cost": cost, "updated_at": as_of, "basis": "ledger"})
    else:
        db["holdings"].insert(
            {
                "symbol": symbol,
                "name": name or symbol,
                "short_names": "[]",
                "shares": shares,
                "cost": cost,
                "role": "satellite",
                "updated_at": as_of,
                "basis": "ledger",
            }
        )
