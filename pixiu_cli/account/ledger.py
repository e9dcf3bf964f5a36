"""The account from its ledger: one derivation of positions, costs, P&L and cash.

The ledger is every dated event pixiu knows: fills (statements, hand-entered and
chat-recorded trades), cash movements, dividends and their taxes, bonus shares, rights
and allotments, and the corporate actions of the stored market data that a statement did
not book itself. A holding the user stated (a document import, the demo) is a lot at its
cost on the day it was stated; fills of that stock up to that day are history it already
contains. Everything is `Decimal`; nothing is rounded here.

Two costs, because users compare with both: the 摊薄成本 a broker client displays (money
put in minus money taken out, over the shares held: a profitable sale or a dividend lowers
it) and the average cost of the shares still held (a sale leaves it as it was; its gain is
realised P&L). For every stock, unrealised (value − average cost × shares) plus realised
equals value + proceeds − cost, exactly: both are kept from the same cost taken out."""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import date, timedelta
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal

from pixiu_cli.account.fees import dividend_tax_rate, never_taxed
from pixiu_cli.account.model import (
    ALLOTMENT,
    BONUS,
    BUY,
    DIVIDEND,
    DIVIDEND_TAX,
    FEE,
    INTEREST,
    IPO_PAYMENT,
    RIGHTS,
    SELL,
    TRANSFER_IN,
    TRANSFER_OUT,
    Fill,
)
from pixiu_cli.market.bars import CorporateAction

ZERO = Decimal(0)
_TINY = Decimal("1e-10")
BUYING_KINDS = (BUY, ALLOTMENT, RIGHTS)
# A statement books a corporate action itself within days of its ex-date; this far either
# side, a bonus or dividend row of the stock is taken to be that action.
BOOKED_BEFORE, BOOKED_AFTER = timedelta(days=7), timedelta(days=60)
# A statement books the dividend tax of a sale within days after it (股息红利税补缴); a tax
# row of the stock this soon after a sale is that tax, and the ledger estimates none. Within
# BOOKED_AFTER: such a row drops the stored checkpoints that contain the sale.
TAX_BOOKED_AFTER = timedelta(days=31)
CENT = Decimal("0.01")


def dec(value) -> Decimal:
    """A stored float as the decimal it was written as (0.1 stays 0.1, not 0.1000000000000000055)."""
    if value is None:
        return ZERO
    if isinstance(value, Decimal):
        return value
    return Decimal(repr(float(value))) if isinstance(value, float) else Decimal(value)


@dataclass(frozen=True)
class StatedLot:
    """A holding as the user (or a document) stated it: shares at a cost on a day ("" when
    it was stated without one: taken to be current, every fill of the stock moves it)."""

    symbol: str
    shares: Decimal
    cost: Decimal
    day: str


@dataclass(frozen=True)
class AppliedAction:
    """A corporate action the ledger applied to the shares held on its ex-date."""

    ex_date: str
    held: Decimal
    cash: Decimal  # pre-tax dividend paid
    bonus: Decimal  # shares added (whole shares)


@dataclass(frozen=True)
class EstimatedTax:
    """The dividend tax the ledger took at a sale (domain/dividend_tax.py), on the cash
    dividends of stored corporate actions that the shares sold received, when no statement
    row booked it."""

    day: str  # the sale's
    dividend: Decimal  # the cash dividend of the shares sold
    amount: Decimal  # to the cent, as the broker takes it


@dataclass
class _Lot:
    """Shares bought on one day, for the holding period of the dividend tax (first in, first
    out); bonus shares join the lots they were issued on."""

    day: str  # "": a buy day the ledger does not know, or past every rule's last bracket
    shares: Decimal
    untaxed: dict[str, Decimal] = field(default_factory=dict)  # ex-date → the cash they received


@dataclass(frozen=True)
class Position:
    """What one stock's events add up to."""

    symbol: str
    name: str | None
    shares: Decimal
    basis: Decimal  # the average cost × shares held: what the shares held cost, fees included
    invested: Decimal  # money put in − money taken out since the position last opened (摊薄)
    cost_in: Decimal  # every yuan put in: buys, rights and allotments with fees, a stated lot
    proceeds: Decimal  # every yuan taken out: sales net of fees, dividends net of tax
    realised_pnl: Decimal  # proceeds − the cost of the shares they took out
    fees: Decimal
    dividends: Decimal  # net of the dividend tax
    bonus_shares: Decimal
    opening_shares: Decimal  # sold that the ledger never bought: held before its first event
    first_day: str
    last_day: str
    stated_day: str | None  # the day of the stated holding it starts from, if any
    actions: tuple[AppliedAction, ...] = ()
    taxes: tuple[EstimatedTax, ...] = ()

    @property
    def held(self) -> bool:
        return self.shares > 0

    @property
    def last_event_day(self) -> str:
        """The day of its last ledger event: a fill, a stated lot, or a corporate action the
        ledger applied from market data ("" when none is dated)."""
        return max([self.last_day, *(a.ex_date for a in self.actions)])

    @property
    def average_cost(self) -> Decimal | None:
        return self.basis / self.shares if self.held else None

    @property
    def diluted_cost(self) -> Decimal | None:
        return self.invested / self.shares if self.held else None

    def cost(self, method: str) -> Decimal | None:
        """The cost per share by the method; the average cost where the diluted one is not
        positive (dividends and gains have paid for the shares)."""
        if not self.held:
            return None
        if method == "diluted" and self.invested > 0:
            return self.diluted_cost
        return self.average_cost


@dataclass
class _Book:
    symbol: str
    name: str | None = None
    shares: Decimal = ZERO
    basis: Decimal = ZERO
    invested: Decimal = ZERO
    cost_in: Decimal = ZERO
    proceeds: Decimal = ZERO
    realised: Decimal = ZERO
    fees: Decimal = ZERO
    dividends: Decimal = ZERO
    bonus: Decimal = ZERO
    opening: Decimal = ZERO
    first_day: str = ""
    last_day: str = ""
    stated_day: str | None = None
    actions: list[AppliedAction] = field(default_factory=list)
    lots: list[_Lot] = field(default_factory=list)
    taxes: list[EstimatedTax] = field(default_factory=list)

    def _saw(self, day: str) -> None:
        self.first_day = min(self.first_day, day) if self.first_day else day
        self.last_day = max(self.last_day, day)

    def buy(self, quantity: Decimal, money: Decimal, day: str) -> None:
        self.shares += quantity
        self.basis += money
        self.invested += money
        self.cost_in += money
        if day:
            self._age_lots(day)
        self.lots.append(_Lot(day, quantity))

    def _age_lots(self, day: str) -> None:
        """The oldest lots held past every rule's last bracket become one lot no sale taxes,
        so the lots kept are about a year's buys, not the whole history's."""
        aged = 0
        while aged < len(self.lots) and never_taxed(self.lots[aged].day, day):
            aged += 1
        if aged > 1 or (aged == 1 and (self.lots[0].day or self.lots[0].untaxed)):
            shares = sum((lot.shares for lot in self.lots[:aged]), ZERO)
            self.lots[:aged] = [_Lot("", shares)]

    def sell(self, quantity: Decimal, price: Decimal, net: Decimal) -> None:
        if quantity > self.shares:
            # shares held before the ledger's first event: taken at the sale price, so they
            # add no P&L pixiu cannot know
            missing = quantity - self.shares
            self.opening += missing
            self.buy(missing, missing * price, "")
        # to 1e-10 yuan: every later sum is then exact, so the identities hold to the last digit
        cost_out = self.basis if quantity == self.shares else (self.basis * quantity / self.shares).quantize(_TINY)
        self.realised += net - cost_out
        self.proceeds += net
        self.shares -= quantity
        self.basis -= cost_out
        self.invested -= net
        if self.shares == 0:
            self.basis = self.invested = ZERO

    def _take(self, quantity: Decimal, day: str) -> tuple[Decimal, Decimal]:
        """The shares sold out of the oldest lots: the untaxed dividend they carried, and the
        tax on it by how long each lot was held."""
        dividend = tax = ZERO
        while quantity > 0 and self.lots:
            lot = self.lots[0]
            part = min(quantity, lot.shares)
            for ex_date, cash in lot.untaxed.items():
                share = cash if part == lot.shares else (cash * part / lot.shares).quantize(_TINY)
                dividend += share
                tax += share * dividend_tax_rate(ex_date, lot.day, day)
                lot.untaxed[ex_date] = cash - share
            lot.shares -= part
            quantity -= part
            if lot.shares <= 0:
                self.lots.pop(0)
        return dividend, tax.quantize(CENT, ROUND_HALF_UP)

    def sale(self, f: Fill, net: Decimal, estimate_tax: bool) -> None:
        """A sale, and the dividend tax the broker takes at it unless a statement row books it."""
        quantity = dec(f.quantity)
        self.sell(quantity, dec(f.price), net)
        dividend, tax = self._take(quantity, f.day)
        if self.shares == 0:
            self.lots.clear()
        if estimate_tax and tax:
            self.cash(-tax)
            self.taxes.append(EstimatedTax(f.day, dividend, tax))

    def _grow_lots(self, extra: Decimal) -> None:
        """Bonus shares spread over the lots they were issued on, in whole shares."""
        total = sum((lot.shares for lot in self.lots), ZERO)
        if total <= 0:
            self.lots = [_Lot("", extra)]
            return
        given = ZERO
        for lot in self.lots[:-1]:
            added = (lot.shares * extra / total).to_integral_value(ROUND_DOWN)
            lot.shares += added
            given += added
        self.lots[-1].shares += extra - given

    def cash(self, amount: Decimal) -> None:
        """A dividend (positive) or the tax on one (negative): realised, and money taken out."""
        self.dividends += amount
        self.realised += amount
        self.proceeds += amount
        self.invested -= amount

    def fill(self, f: Fill, estimate_tax: bool = True) -> None:
        self.name = f.name or self.name
        self._saw(f.day)
        quantity, amount, fees = dec(f.quantity), dec(f.amount), dec(f.fees)
        self.fees += fees
        if f.kind in BUYING_KINDS:
            self.buy(quantity, amount + fees, f.day)
        elif f.kind == SELL:
            self.sale(f, amount - fees, estimate_tax)
        elif f.kind == BONUS:
            self._grow_lots(quantity)
            self.shares += quantity
            self.bonus += quantity
        elif f.kind == DIVIDEND:
            self.cash(amount - fees)
        elif f.kind == DIVIDEND_TAX:
            self.cash(-(amount + fees))

    def lot(self, lot: StatedLot) -> None:
        self._saw(lot.day)
        self.stated_day = lot.day
        # the day a holding was stated is not the day its shares were bought: their holding
        # period is unknown, and no dividend tax is estimated on them
        self.buy(lot.shares, lot.shares * lot.cost, "")

    def action(self, a: CorporateAction) -> None:
        if self.shares <= 0:
            return
        held = self.shares
        cash = held * dec(a.cash_per_share)
        bonus = (held * dec(a.shares_per_share)).to_integral_value(ROUND_DOWN)
        if cash:
            self.cash(cash)
            for lot in self.lots:  # paid before tax: the tax is taken when these shares are sold
                lot.untaxed[a.ex_date] = lot.untaxed.get(a.ex_date, ZERO) + lot.shares * dec(a.cash_per_share)
        if bonus:
            self._grow_lots(bonus)
            self.shares += bonus
            self.bonus += bonus
        self.actions.append(AppliedAction(a.ex_date, held, cash, bonus))

    def position(self) -> Position:
        return Position(
            self.symbol,
            self.name,
            self.shares,
            self.basis,
            self.invested,
            self.cost_in,
            self.proceeds,
            self.realised,
            self.fees,
            self.dividends,
            self.bonus,
            self.opening,
            self.first_day,
            self.last_day,
            self.stated_day,
            tuple(self.actions),
            tuple(self.taxes),
        )


def _booked(action: CorporateAction, fills: Sequence[Fill]) -> bool:
    """The statement already has this action: a bonus row for a share action, a dividend
    row for a cash one, within days of its ex-date."""
    ex = date.fromisoformat(action.ex_date)
    kinds = set()
    if action.shares_per_share:
        kinds.add(BONUS)
    if action.cash_per_share:
        kinds.add(DIVIDEND)
    for f in fills:
        if f.kind in kinds and ex - BOOKED_BEFORE <= date.fromisoformat(f.day) <= ex + BOOKED_AFTER:
            return True
    return False


def _events(
    lot: StatedLot | None,
    fills: Sequence[Fill],
    actions: Sequence[CorporateAction],
    until: str,
    resume: Checkpoint | None = None,
) -> list[tuple[str, int, int, object]]:
    """The stock's events in the order they happened, each with its day: a stated lot first,
    then by day; on an ex-date the action comes before that day's fills (a share bought on
    the ex-date does not receive it). From a checkpoint: only the events after its day (the
    fills before it still tell which later actions a statement booked)."""
    if lot is not None:
        fills = [f for f in fills if f.day > lot.day]
    start = lot.day if lot is not None else min((f.day for f in fills), default=None)
    if lot is not None and not lot.day:
        start = until  # an undated holding is taken to be current: no earlier action is assumed
    after = ""
    if resume is not None:
        start, after = resume.first_day or min((f.day for f in fills), default=None), resume.through
    events: list[tuple[str, int, int, object]] = []
    if lot is not None:
        events.append((lot.day, 0, 0, lot))
    for i, f in enumerate(fills):
        if f.day > after:
            events.append((f.day, 2, i, f))
    if start is not None:
        seen = set()
        for a in sorted(actions, key=lambda a: a.ex_date):
            if a.method != "cash_shares" or a.ex_date in seen or not (max(start, after) < a.ex_date <= until):
                continue
            seen.add(a.ex_date)
            if not _booked(a, fills):
                events.append((a.ex_date, 1, 0, a))
    events.sort(key=lambda e: e[:3])
    return events


def _tax_booked(sale: Fill, tax_days: Sequence[str]) -> bool:
    """A statement row of the stock books the dividend tax of this sale (sorted `tax_days`)."""
    i = bisect_left(tax_days, sale.day)
    return i < len(tax_days) and tax_days[i] <= (date.fromisoformat(sale.day) + TAX_BOOKED_AFTER).isoformat()


def _apply(book: _Book, event: object, tax_days: Sequence[str]) -> None:
    if isinstance(event, Fill):
        book.fill(event, event.kind != SELL or not _tax_booked(event, tax_days))
    elif isinstance(event, StatedLot):
        book.lot(event)
    else:
        book.action(event)


def position(
    symbol: str,
    fills: Sequence[Fill],
    *,
    lot: StatedLot | None = None,
    actions: Sequence[CorporateAction] = (),
    until: str = "9999-12-31",
    resume: Checkpoint | None = None,
) -> Position:
    """One stock's position from its stated lot, its fills (in the order they happened) and
    the corporate actions up to `until` that no statement row booked. `resume`: go on from
    a checkpoint of the same stock (`checkpointed`) instead of its first event; `fills` then
    need only start BOOKED_BEFORE ahead of the checkpoint's day."""
    return checkpointed(symbol, fills, lot=lot, actions=actions, until=until, resume=resume)[0]


def checkpointed(
    symbol: str,
    fills: Sequence[Fill],
    *,
    lot: StatedLot | None = None,
    actions: Sequence[CorporateAction] = (),
    until: str = "9999-12-31",
    resume: Checkpoint | None = None,
) -> tuple[Position, Checkpoint | None]:
    """`position`, and the book at the end of the day of its last fill (never after `until`),
    to resume from while no event up to that day changes; None for a stated lot (its day,
    not the fills, starts the history)."""
    if resume is not None and (resume.symbol != symbol or resume.through > until or lot is not None):
        raise ValueError("a checkpoint resumes only its own stock, without a stated lot, up to its day")
    book = resume.book() if resume is not None else _Book(symbol)
    through = min(max((f.day for f in fills), default=""), until)
    if resume is not None:
        through = max(through, resume.through)
    mark = None
    tax_days = sorted(f.day for f in fills if f.kind == DIVIDEND_TAX)
    for day, _, _, event in _events(lot, fills, actions, until, resume):
        if mark is None and day > through:
            mark = Checkpoint.of(book, through)
        _apply(book, event, tax_days)
    if lot is not None or not through:
        return book.position(), None
    return book.position(), mark or Checkpoint.of(book, through)


@dataclass(frozen=True)
class DayEnd:
    """One stock at the end of a day it had an event: the shares held, and the cash the
    ledger itself moved that day (a dividend of a stored corporate action no statement
    booked, the dividend tax it took at a sale): the account's cash, as `applied_dividends`
    counts it for today."""

    day: str
    shares: Decimal
    applied_cash: Decimal
    opening: Decimal  # shares sold so far that the ledger never bought (held before its first event)


def day_ends(
    symbol: str,
    fills: Sequence[Fill],
    *,
    lot: StatedLot | None = None,
    actions: Sequence[CorporateAction] = (),
    until: str = "9999-12-31",
) -> list[DayEnd]:
    """The stock's book at the end of every day it had an event, by the same events and
    arithmetic as `position`: what a history of the account's value is built from."""
    book = _Book(symbol)
    tax_days = sorted(f.day for f in fills if f.kind == DIVIDEND_TAX)
    out: list[DayEnd] = []
    applied = ZERO
    current = None
    for day, _, _, event in _events(lot, fills, actions, until):
        if current is not None and day != current:
            out.append(DayEnd(current, book.shares, applied, book.opening))
            applied = ZERO
        current = day
        paid, taxed = len(book.actions), len(book.taxes)
        _apply(book, event, tax_days)
        applied += sum((a.cash for a in book.actions[paid:]), ZERO) - sum((t.amount for t in book.taxes[taxed:]), ZERO)
    if current is not None:
        out.append(DayEnd(current, book.shares, applied, book.opening))
    return out


def resume_fills_from(checkpoint: Checkpoint) -> str:
    """The first day of the fills `position(..., resume=checkpoint)` needs: those that tell
    whether a statement booked an action after the checkpoint."""
    return (date.fromisoformat(checkpoint.through) - BOOKED_BEFORE).isoformat()


CHECKPOINT_FORMAT = 2  # a checkpoint written by other arithmetic is never resumed from


@dataclass(frozen=True)
class Checkpoint:
    """One stock's book after every event up to the end of `through`, exactly (Decimals as
    text), so `position(..., resume=c)` over the later events equals the whole derivation."""

    symbol: str
    through: str
    state: str  # the book's fields as JSON

    @property
    def first_day(self) -> str:
        return json.loads(self.state)["first_day"]

    @staticmethod
    def of(book: _Book, through: str) -> Checkpoint:
        listed = ("actions", "lots", "taxes")
        state = {f.name: getattr(book, f.name) for f in fields(_Book) if f.name not in listed}
        state = {k: str(v) if isinstance(v, Decimal) else v for k, v in state.items()}
        state["actions"] = [[a.ex_date, str(a.held), str(a.cash), str(a.bonus)] for a in book.actions]
        state["lots"] = [[lot.day, str(lot.shares), {k: str(v) for k, v in lot.untaxed.items()}] for lot in book.lots]
        state["taxes"] = [[t.day, str(t.dividend), str(t.amount)] for t in book.taxes]
        state["format"] = CHECKPOINT_FORMAT
        return Checkpoint(book.symbol, through, json.dumps(state, ensure_ascii=False, sort_keys=True))

    def book(self) -> _Book:
        state = json.loads(self.state)
        if state.pop("format", None) != CHECKPOINT_FORMAT:
            raise ValueError("checkpoint written in another format")
        actions = [AppliedAction(d, Decimal(h), Decimal(c), Decimal(b)) for d, h, c, b in state.pop("actions")]
        lots = [_Lot(d, Decimal(n), {k: Decimal(v) for k, v in u.items()}) for d, n, u in state.pop("lots")]
        taxes = [EstimatedTax(d, Decimal(v), Decimal(a)) for d, v, a in state.pop("taxes")]
        values = {k: Decimal(v) if isinstance(getattr(_Book, k, None), Decimal) else v for k, v in state.items()}
        return _Book(**values, actions=actions, lots=lots, taxes=taxes)

    def usable(self) -> bool:
        try:
            self.book()
        except (ValueError, TypeError, KeyError, ArithmeticError):
            return False
        return True


def positions(
    fills: Iterable[Fill],
    lots: Mapping[str, StatedLot] | None = None,
    actions: Mapping[str, Sequence[CorporateAction]] | None = None,
    until: str = "9999-12-31",
) -> dict[str, Position]:
    """Every stock's position: those with fills and those with a stated lot."""
    by_symbol: dict[str, list[Fill]] = {}
    for f in fills:
        if f.symbol is not None:
            by_symbol.setdefault(f.symbol, []).append(f)
    lots = lots or {}
    actions = actions or {}
    symbols = sorted(set(by_symbol) | set(lots))
    return {
        s: position(s, by_symbol.get(s, []), lot=lots.get(s), actions=actions.get(s, ()), until=until) for s in symbols
    }


def combined_position(parts: Sequence[Position]) -> Position:
    """One stock held in several accounts as one line: each account's position derived on its
    own (its lots, its sales, its dividend tax), then summed, so every figure of the line is
    the sum of the accounts' to the last digit."""
    if len(parts) == 1:
        return parts[0]

    def total(name: str) -> Decimal:
        return sum((getattr(p, name) for p in parts), ZERO)

    days = [p.first_day for p in parts if p.first_day]
    return Position(
        parts[0].symbol,
        next((p.name for p in parts if p.name), None),
        *(total(name) for name in _SUMMED),
        min(days) if days else "",
        max(p.last_day for p in parts),
        next((p.stated_day for p in parts if p.stated_day is not None), None),
        tuple(sorted((a for p in parts for a in p.actions), key=lambda a: a.ex_date)),
        tuple(sorted((t for p in parts for t in p.taxes), key=lambda t: t.day)),
    )


_SUMMED = ("shares", "basis", "invested", "cost_in", "proceeds", "realised_pnl", "fees", "dividends", "bonus_shares",
           "opening_shares")  # fmt: skip


# cash ----------------------------------------------------------------------------------
_CASH_SIGN = {
    BUY: -1,
    ALLOTMENT: -1,
    RIGHTS: -1,
    SELL: 1,
    DIVIDEND: 1,
    DIVIDEND_TAX: -1,
    TRANSFER_IN: 1,
    TRANSFER_OUT: -1,
    INTEREST: 1,
    FEE: -1,
    IPO_PAYMENT: -1,
    BONUS: 0,
}


def cash_effect(f: Fill) -> Decimal | None:
    """The fill's signed effect on cash: the statement's own figure when it gave one, else
    what its kind does with its amount and fees; None when neither says."""
    if f.cash_change is not None:
        return dec(f.cash_change)
    sign = _CASH_SIGN.get(f.kind)
    if sign is None:
        return None
    amount, fees = dec(f.amount), dec(f.fees)
    if sign == 0:
        return -fees
    if f.kind in (SELL, DIVIDEND):
        return amount - fees
    return -(amount + fees) if sign < 0 else amount


@dataclass(frozen=True)
class CashFlows:
    """What the ledger moved cash by after a stated balance."""

    moved: Decimal
    rolled: int  # fills (and applied dividends) counted
    missing: int  # later fills whose effect on cash is unknown
    last_day: str | None


def cash_after(
    as_of: str, fills: Iterable[Fill], applied: Iterable[tuple[str, Decimal]] = (), *, after_seq: int | None = None
) -> CashFlows:
    """The flows dated after `as_of` (a balance is the account at that day's end), and those
    of that very day written to the ledger after the balance was stated (seq > `after_seq`)."""
    moved, rolled, missing, last = ZERO, 0, 0, None
    for f in fills:
        later = f.day > as_of or (after_seq is not None and f.day == as_of and (f.seq or 0) > after_seq)
        if not later:
            continue
        effect = cash_effect(f)
        if effect is None:
            missing += 1
            continue
        moved += effect
        rolled += 1
        last = max(last or f.day, f.day)
    for day, cash in applied:
        if day > as_of:
            moved += cash
            rolled += 1
            last = max(last or day, day)
    return CashFlows(moved, rolled, missing, last)
