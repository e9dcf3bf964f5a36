"""`pixiu trades import`: a broker statement into the account. Every fill is matched against
what the account already has (domain/fill_match.py: the broker's number, else the same
stock, side, quantity, price and day, counted one for one: a trade told in conversation, or
the same fill from another client's export), so importing a statement again adds nothing
and one that overlaps it adds only what is new. A trade dated on a day the exchanges were
shut is refused with its row. The holdings of the stocks it touches follow the fills; a
stored holding dated after them is kept and both figures reported. One transaction, which
also reads what the account has: a file that does not read changes nothing, and two imports
at once never both add one fill."""

from __future__ import annotations

import math
from collections import Counter
from contextlib import nullcontext
from dataclasses import dataclass, replace
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pixiu_cli.domain.account import BUY, SELL, CashBalance, Fill
from pixiu_cli.domain.fill_match import FillPlan, plan_fills
from pixiu_cli.domain.investor import Holding
from pixiu_cli.domain.ledger import positions
from pixiu_cli.market.security_master import security_name
from pixiu_cli.market.trading_days import CalendarEnd, holiday_name, is_trading_day
from pixiu_cli.services.account import sync_holding
from pixiu_cli.services.errors import RequestError
from pixiu_cli.statements.reader import Statement, read_statement
from pixiu_cli.store.account import AccountStore
from pixiu_cli.store.database import write_transaction
from pixiu_cli.store.portfolio import set_position
from pixiu_cli.store.shared import stores_of

if TYPE_CHECKING:
    from sqlite_utils import Database


_CHUNK = 10_000  # fills written per prepared INSERT


@dataclass(frozen=True)
class HoldingChange:
    symbol: str
    name: str
    before: float | None  # shares held before the import (None: not held)
    after: float  # shares the fills leave
    kept: bool  # the stored holding is dated after the fills: left as it was
    opening: float = 0.0  # shares sold that the fills never bought (held before the statement)


@dataclass(frozen=True)
class StatementImport:
    layout: str
    dry_run: bool
    added: tuple[Fill, ...]
    matched: tuple[Fill, ...]  # the statement's fill for a trade told one at a time
    duplicates: int  # fills the account already had
    skipped: dict[str, int]  # reason → rows
    bad_rows: tuple[str, ...]  # with --skip-bad: each bad row's message
    holdings: tuple[HoldingChange, ...]
    cash: CashBalance | None  # the balance this import sets
    newer_cash: CashBalance | None  # a later balance already stored, kept
    unknown: dict[str, int]  # business names pixiu does not know → rows
    unpaid: tuple[Fill, ...]  # new shares at price 0: the statement has no payment for them


def closed_problem(day: str) -> str | None:
    """Why the exchanges were shut on `day`, or None (also past the calendar's end on a
    weekday: that is not known)."""
    d = date.fromisoformat(day)
    if d.weekday() >= 5:
        return f"{day} 是{'周六' if d.weekday() == 5 else '周日'}，交易所休市，不可能有成交"
    try:
        if is_trading_day(d):
            return None
    except CalendarEnd:
        return None
    return f"{day} 是{holiday_name(d) or '休市日'}，交易所休市，不可能有成交"


def _check_account(store: AccountStore, statement: Statement, new_account: bool) -> None:
    known = store.accounts()
    if new_account or not known or not statement.accounts or statement.accounts & known:
        return
    raise RequestError(
        f"对账单的股东代码 {'、'.join(sorted(statement.accounts))} 与之前导入的 {'、'.join(sorted(known))} 都不同："
        "可能是另一个账户的对账单；未导入任何内容（确是同一投资者的新账户请加 --new-account）"
    )


def _changes(db: Database, store: AccountStore, plan: FillPlan, as_of: str) -> list[tuple[HoldingChange, object]]:
    """Each stock the statement adds fills for: its holding change and the position all its
    fills (the new ones included) add up to. A stock whose only fills are trades already
    told keeps its holding: those trades moved it when they were told."""
    new = plan.added + [f for _, f in plan.matched]
    touched = sorted({f.symbol for f in plan.added if f.symbol})
    if not touched:
        return []
    replaced = {m.fill_id for m, _ in plan.matched}
    had = [f for f in store.fills() if f.symbol in touched]
    ordered = sorted([f for f in had if f.fill_id not in replaced] + new, key=lambda f: (f.day, f.time or ""))
    derived, before_import = positions(ordered), positions(had)
    stored = {h.symbol: h for h in stores_of(db).investor.holdings()}
    out = []
    for symbol in touched:
        p = derived[symbol]
        row = stored.get(symbol)
        kept = row is not None and _newer_than_fills(row, before_import.get(symbol), max(p.last_day, as_of))
        before = row.shares if row else None
        name = security_name(stores_of(db).securities, symbol) or (row.name if row else None) or symbol
        if before is None or not math.isclose(before, p.shares, abs_tol=1e-6) or not kept:
            out.append((HoldingChange(symbol, name, before, float(p.shares), kept, float(p.opening_shares)), p))
    return out


def _newer_than_fills(row: Holding, had, last_day: str) -> bool:
    """A holding the fills did not make (a JSON import, an edit) dated after them: the user
    said it later than the statement, so it stands."""
    explained = had is not None and math.isclose(had.shares, row.shares or 0.0, abs_tol=1e-6)
    return not explained and bool(row.updated_at) and row.updated_at[:10] > last_day


def _cash(store: AccountStore, statement: Statement, today: date) -> tuple[CashBalance | None, CashBalance | None]:
    stated, stored = statement.cash, store.cash(today.isoformat())
    if stated is None:
        return None, None
    if stored is not None and stored.as_of > stated.as_of:
        return None, stored
    if stored is not None and (stored.amount, stored.as_of) == (stated.amount, stated.as_of):
        return None, None  # already what the account says
    return stated, None


def _write(db: Database, plan: FillPlan, changes, cash, method: str, where: str, at: str, as_of: str) -> None:
    store = stores_of(db).account
    with write_transaction(db):
        for start in range(0, len(plan.added), _CHUNK):
            chunk = plan.added[start : start + _CHUNK]
            trades = [f for f in chunk if f.kind in (BUY, SELL)]
            decisions = dict(zip((id(f) for f in trades), stores_of(db).portfolio.statement_decisions(trades)))
            store.add_fills([replace(f, decision_id=decisions.get(id(f))) for f in chunk], source_file=where, at=at)
        for manual, fill in plan.matched:
            store.take_over(manual, fill, source_file=where, at=at)
        if cash is not None:
            store.set_cash(cash, at)
        now = datetime.fromisoformat(at)
        for change, p in changes:
            if change.kept:
                continue
            # the ledger's row from now on: the stated holding (if any) gives way to the fills
            cost = p.cost(method)
            day = f"{max(p.last_day, as_of)}T15:00:00+08:00"
            set_position(db, p.symbol, change.name, float(p.shares), float(cost) if cost else None, day)
            sync_holding(db, p.symbol, now, method, day)


def import_statement(
    db: Database,
    path: Path,
    now: datetime,
    *,
    broker: str = "auto",
    dry_run: bool = False,
    skip_bad: bool = False,
    new_account: bool = False,
    cost_method: str = "diluted",
) -> StatementImport:
    statement = read_statement(path, broker, skip_bad, today=now.date(), closed=closed_problem)
    store = stores_of(db).account
    # what the account has is read under the write lock: an import running at the same time
    # waits, then sees this one's fills
    with nullcontext() if dry_run else write_transaction(db):
        _check_account(store, statement, new_account)
        plan = plan_fills(store.fills(), statement.fills)
        last_day = max((f.day for f in statement.fills), default="")
        changes = _changes(db, store, plan, last_day)
        cash, newer_cash = _cash(store, statement, now.date())
        if not dry_run:
            _write(db, plan, changes, cash, cost_method, path.name, now.isoformat(timespec="seconds"), last_day)
    return StatementImport(
        statement.layout,
        dry_run,
        tuple(plan.added),
        tuple(f for _, f in plan.matched),
        plan.duplicates,
        dict(Counter(s.reason for s in statement.skipped)),
        tuple(str(b) for b in statement.bad),
        tuple(c for c, _ in changes),
        cash,
        newer_cash,
        statement.unknown,
        statement.unpaid,
    )
