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
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pixiu_cli.account.ledger import Position, position
from pixiu_cli.account.model import (
    BUY,
    DIVIDEND,
    IPO_PAYMENT,
    KIND_NAMES,
    NEW_SHARES_KINDS,
    SELL,
    BrokerAccount,
    CashBalance,
    Fill,
    FillPlan,
    allotment_half,
    is_credit,
    joined_allotment,
    plan_fills,
)
from pixiu_cli.account.overview import FillGate, FillRefusal, ledger_positions
from pixiu_cli.account.statements.reader import StatementStream, client_of, open_statement
from pixiu_cli.account.store import AccountStore, set_position
from pixiu_cli.home.model import Holding
from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.store.database import write_transaction
from pixiu_cli.kernel.vocabulary import DEFAULT_ACCOUNT
from pixiu_cli.market.security_master import security_name
from pixiu_cli.market.trading_days import CalendarEnd, holiday_name, is_trading_day

if TYPE_CHECKING:
    from pixiu_cli.account.books import AccountBooks
    from pixiu_cli.account.handle import Account


_CHUNK = 10_000  # fills written per prepared INSERT


@dataclass(frozen=True)
class HoldingChange:
    symbol: str
    name: str
    before: float | None  # shares held before the import (None: not held)
    after: float  # shares the fills leave
    kept: bool  # the stored holding is dated after the fills: left as it was
    opening: float = 0.0  # shares sold that the fills never bought (held before the statement)
    unbooked: float = 0.0  # bonus shares of stored corporate actions the statement did not book (in `after`)

    @property
    def stated(self) -> float:
        """The shares the statement's own rows leave."""
        return self.after - self.unbooked


@dataclass(frozen=True)
class StatementImport:
    layout: str
    dry_run: bool
    added: int  # new fills
    listed: tuple[Fill, ...]  # a dry run's new fills (an import keeps none: a statement may have millions)
    matched: tuple[Fill, ...]  # the statement's fill for a trade told one at a time
    duplicates: int  # fills the account already had
    skipped: dict[str, int]  # reason → rows
    bad_rows: tuple[str, ...]  # with --skip-bad: each bad row's message
    holdings: tuple[HoldingChange, ...]
    cash: CashBalance | None  # the balance this import sets
    newer_cash: CashBalance | None  # a later balance already stored, kept
    unknown: dict[str, int]  # business names pixiu does not know → rows
    unpaid: tuple[Fill, ...]  # new shares at price 0: no payment for them in the statement or the account
    joined: tuple[Fill, ...] = ()  # allotments whose other half (payment or shares) an earlier import stored
    awaiting: tuple[Fill, ...] = ()  # payments for new shares no statement has credited yet
    broker_account: str = DEFAULT_ACCOUNT  # the account it went to
    created: str | None = None  # the numbers of an account it made (none matched), said in its line
    several: bool = False  # the home has more than one account: the import says which


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


def _new_name(taken: list[str], client: str, numbers: frozenset[str]) -> str:
    number = sorted(numbers)[0]
    base = f"{client}-{number[-4:]}"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    return name


def _target(books: AccountBooks, stream: StatementStream, named: str | None, at: str) -> tuple[str, str | None]:
    """The account the statement goes to, and the numbers of one it made: the account its
    股东代码 / 资金账号 name; `named` (--account NAME, made when new); with neither, the
    default account while no account has numbers (it takes these), else a new one named
    after the client and the number's last 4 digits. A file whose numbers are two
    accounts', or another account's than the one named, is refused."""
    store = books.store
    numbers = stream.accounts | stream.fund_accounts
    known = store.broker_accounts()
    owners = [a.name for a in known if a.numbers & numbers]
    if len(owners) > 1:
        raise RequestError(
            f"对账单中的股东代码/资金账号分属账户 {'、'.join(owners)}：一个文件只能导入一个账户；未导入任何内容"
        )
    if named is not None and owners and owners[0] != named:
        raise RequestError(f"对账单的股东代码/资金账号属于账户「{owners[0]}」，而不是「{named}」；未导入任何内容")
    client, fund = client_of(stream.layout), min(stream.fund_accounts, default=None)
    made = None
    if named is not None:
        name = named
    elif owners:
        name = owners[0]
    elif not numbers or not any(a.numbers for a in known):
        name = known[0].name if known else DEFAULT_ACCOUNT
    else:
        name, made = _new_name([a.name for a in known], client, numbers), "、".join(sorted(numbers))
    if name not in {a.name for a in known}:
        store.add_broker_account(BrokerAccount(name, client, fund, tuple(sorted(stream.accounts))), at)
    store.note_numbers(name, client, fund, stream.accounts)
    return name, made


def _changes(
    account: Account, now: datetime, touched: set[str], first_new: int, as_of: str
) -> list[tuple[HoldingChange, Position]]:
    """Each stock the statement added fills for: its holding change and its position, derived
    once from all its fills (the new ones, written, included) and the stored corporate
    actions, as the holding row becomes when it gives way to the ledger. A stock whose only
    fills are trades already told keeps its holding: those trades moved it when they were
    told (`first_new`: the first id this import wrote)."""
    if not touched:
        return []
    stored = {h.symbol: h for h in account.home.investor.holdings()}
    derived = ledger_positions(account, now, sorted(touched))
    # a stock left without fills: the code a payment was stored under before its shares came
    derived.update({s: position(s, []) for s in touched - derived.keys() if s in stored})
    out = []
    for symbol, p in sorted(derived.items()):  # every touched stock: each has the fills just written
        row = stored.get(symbol)
        kept = row is not None and _newer_than_fills(row, account.store, symbol, first_new, max(p.last_day, as_of))
        before = row.shares if row else None
        name = security_name(account.market.securities, symbol) or (row.name if row else None) or symbol
        if before is None or not math.isclose(before, p.shares, abs_tol=1e-6) or not kept:
            unbooked = float(sum(a.bonus for a in p.actions))
            change = HoldingChange(symbol, name, before, float(p.shares), kept, float(p.opening_shares), unbooked)
            out.append((change, p))
    return out


def _newer_than_fills(row: Holding, store: AccountStore, symbol: str, first_new: int, last_day: str) -> bool:
    """A holding the fills did not make (a JSON import, an edit) dated after them: the user
    said it later than the statement, so it stands. The fills from before this import are
    read and derived only for a row dated after them (the one case their position decides)."""
    if not row.updated_at or row.updated_at[:10] <= last_day:
        return False
    had = [f for f in store.fills(symbol) if (f.seq or 0) < first_new]
    return not (had and math.isclose(position(symbol, had).shares, row.shares or 0.0, abs_tol=1e-6))


def _cash(
    store: AccountStore, stated: CashBalance | None, today: date
) -> tuple[CashBalance | None, CashBalance | None]:
    stored = store.cash(today.isoformat())
    if stated is None:
        return None, None
    if stored is not None and stored.as_of > stated.as_of:
        return None, stored
    if stored is not None and (stored.amount, stored.as_of) == (stated.amount, stated.as_of):
        return None, None  # already what the account says
    return stated, None


@dataclass
class _Written:
    """What the import has written so far, a day of the statement at a time."""

    where: str
    at: str
    keep: bool  # a dry run keeps every new fill, to list them
    added: int = 0
    listed: list[Fill] = field(default_factory=list)
    matched: list[Fill] = field(default_factory=list)
    duplicates: int = 0
    touched: set[str] = field(default_factory=set)
    pending: list[Fill] = field(default_factory=list)
    joined: list[Fill] = field(default_factory=list)  # allotments an earlier import's half completes
    credits_joined: set[str] = field(default_factory=set)  # ids of the credits at 0 among them
    allotments: list[Fill] | None = None  # the stored allotments, read at the first new one
    awaiting: list[Fill] = field(default_factory=list)

    def _joined(self, store: AccountStore, half: Fill) -> bool:
        """The new payment or credit of an allotment whose other half an earlier import
        stored: the stored row becomes the one allotment (the same whichever came first)."""
        if self.allotments is None:
            self.allotments = [f for kind in NEW_SHARES_KINDS for f in store.fills(kind=kind)]
        stored = allotment_half(half, self.allotments)
        if stored is None:
            return False
        one = joined_allotment(half, stored)
        self.allotments[self.allotments.index(stored)] = one
        self.touched.update(s for s in (stored.symbol, one.symbol) if s)
        if is_credit(half):
            self.credits_joined.add(half.fill_id)
        if replace(one, seq=stored.seq, recorded_at=stored.recorded_at) == stored:
            self.duplicates += 1  # the same allotment again (an overlapping export)
            return True
        store.take_over(stored, one, source_file=self.where, at=self.at)
        self.joined.append(one)
        return True

    def day(self, account: AccountBooks, plan: FillPlan) -> None:
        store = account.store
        for manual, fill in plan.matched:
            store.take_over(manual, fill, source_file=self.where, at=self.at)
            self.matched.append(fill)
        plan.added = [f for f in plan.added if not (f.kind in NEW_SHARES_KINDS and self._joined(store, f))]
        self.added += len(plan.added)
        self.duplicates += plan.duplicates
        self.touched.update(f.symbol for f in plan.added if f.symbol and f.kind != IPO_PAYMENT)  # no shares yet
        self.awaiting += [f for f in plan.added if f.kind == IPO_PAYMENT]
        if self.keep:
            self.listed += plan.added
        self.pending += plan.added
        if len(self.pending) >= _CHUNK:
            self.flush(account)

    def flush(self, account: AccountBooks) -> None:
        trades = [f for f in self.pending if f.kind in (BUY, SELL)]
        decisions = dict(zip((id(f) for f in trades), account.portfolio.statement_decisions(trades)))
        fills = [replace(f, decision_id=decisions.get(id(f))) for f in self.pending]
        account.store.add_fills(fills, source_file=self.where, at=self.at)
        self.pending = []


def _holdings(account: Account, changes, as_of: str) -> None:
    """The ledger's row from now on for each stock whose holding gives way to the fills: the
    position `_changes` derived, written as it is (no second derivation)."""
    for change, p in changes:
        if change.kept:
            continue
        cost = p.cost(account.cost_method)  # None when nothing is held: set_position then removes the row
        day = f"{max(p.last_day, as_of)}T15:00:00+08:00"
        set_position(account.db, p.symbol, change.name, float(p.shares), None if cost is None else float(cost), day)


def _refuse(refused: FillRefusal | None) -> None:
    """The first new fill no account could have rolls the whole import back, named."""
    if refused is not None:
        f = refused.fill
        field = "金额" if f.kind == DIVIDEND else "成交价"
        raise RequestError(
            f"对账单中 {f.day} {KIND_NAMES[f.kind]} {f.symbol} 的{field}：{refused.problem}；未导入任何内容"
        )


class _DryRun(Exception):
    """Ends a dry run's transaction: everything it wrote is rolled back."""

    def __init__(self, done: StatementImport):
        self.done = done


def _run(account: Account, stream: StatementStream, now: datetime, dry_run: bool, named: str | None, where: str):
    written = _Written(where, now.isoformat(timespec="seconds"), keep=dry_run)
    name, made = _target(account, stream, named, written.at)
    # the fills it is matched against, its dividends' shares and its balance: the account's
    books = account.narrowed(name)
    store = books.store
    first_new = store.last_id() + 1
    gate = FillGate(books, now)
    # a fill's id is unique in the home: another account's (a transfer of the same day and
    # amount has the same digest in both) carries its account's name; the default's, as before
    own = "" if name == account.default_account() else f"{name}/"
    for fills in stream.days():  # a fill's twin in the account is on its day
        if own:
            fills = [replace(f, fill_id=own + f.fill_id) for f in fills]
        _refuse(gate.see(fills))
        written.day(books, plan_fills(store.fills(on=fills[0].day), tuple(fills)))
    written.flush(books)
    _refuse(gate.settle())
    changes = _changes(account, now, written.touched, first_new, stream.last_day)  # the rows: every account's line
    cash, newer_cash = _cash(store, stream.cash, now.date())
    if cash is not None:
        store.set_cash(cash, written.at)
    _holdings(account, changes, stream.last_day)
    return StatementImport(
        stream.layout, dry_run, written.added, tuple(written.listed), tuple(written.matched), written.duplicates,
        dict(Counter(s.reason for s in stream.skipped if not s.unknown)), tuple(str(b) for b in stream.bad),
        tuple(c for c, _ in changes), cash, newer_cash, stream.unknown,
        tuple(f for f in stream.unpaid if f.fill_id not in written.credits_joined), tuple(written.joined),
        tuple(written.awaiting), name, made, len(account.store.account_names()) > 1,
    )  # fmt: skip


def import_statement(
    account: Account,
    path: Path,
    now: datetime,
    *,
    broker: str = "auto",
    dry_run: bool = False,
    skip_bad: bool = False,
    broker_account: str | None = None,
) -> StatementImport:
    """`broker_account`: the account it goes to (--account NAME; made when new), else the one
    its numbers name (`_target`)."""
    stream = open_statement(path, broker, skip_bad, today=now.date(), closed=closed_problem)
    # what the account has is read under the write lock: an import running at the same time
    # waits, then sees this one's fills. A dry run writes as an import does (a day at a time,
    # to compare each day with what is stored) and rolls it all back.
    try:
        with write_transaction(account.db):
            done = _run(account, stream, now, dry_run, broker_account, path.name)
            if dry_run:
                raise _DryRun(done)
    except _DryRun as rolled_back:
        done = rolled_back.done
    return done
