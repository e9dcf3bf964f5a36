"""Trades the user reports, and undoing them: the decision row, its memory event and its
fill in the account's ledger; and the holding row the ledger's derivation leaves."""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlite_utils import Database

from pixiu_cli.home.model import Decision, Holding
from pixiu_cli.kernel.codes import is_finite_number
from pixiu_cli.kernel.db.rows import decision_from_row, dict_rows, holding_from_row
from pixiu_cli.kernel.vocabulary import decision_author
from pixiu_cli.memory.store import trade_text


@dataclass(frozen=True)
class UndoneTrade:
    decision: Decision
    holding: Holding | None  # after the undo
    holding_changed: bool  # False for an imported decision, which never moved the holding
    held: object = None  # the account's shares and cost after the undo (services/account.py Held)


class PortfolioStore:
    """Trades the user reports (a decision row, a memory event and a fill) and undoing one."""

    def __init__(self, db: Database):
        self.db = db

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
            "cash_change, origin, decision_id, recorded_at, fee_estimated) "
            "values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'manual', ?, ?, ?)",
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
