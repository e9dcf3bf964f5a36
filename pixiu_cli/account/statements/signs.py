"""Which way a cash row's money went: the sign of its cash column (发生金额, 清算金额 …),
never the name alone. A 股息红利扣税 of −12.30 is 12.30 out; a name pixiu files as a
dividend whose row says −5.00 (a reversal) is 5.00 out, a tax row that says +5.00 (a
refund) is 5.00 in. Only a column that is never negative although money left the account
(a buy, a transfer out) is unsigned: then the kind says the direction."""

from __future__ import annotations

from dataclasses import dataclass, replace

from pixiu_cli.account.model import (
    ALLOTMENT,
    BUY,
    DIVIDEND,
    DIVIDEND_TAX,
    FEE,
    INTEREST,
    RIGHTS,
    SELL,
    TRANSFER_IN,
    TRANSFER_OUT,
)
from pixiu_cli.account.statements.kinds import IPO_PAYMENT
from pixiu_cli.account.statements.rows import Parsed

_INFLOWS = {SELL, DIVIDEND, TRANSFER_IN, INTEREST}
_OUTFLOWS = {BUY, ALLOTMENT, RIGHTS, IPO_PAYMENT, DIVIDEND_TAX, TRANSFER_OUT, FEE}
# the cash kind the same money is when it went the other way
_OPPOSITE = {
    DIVIDEND: DIVIDEND_TAX,
    DIVIDEND_TAX: DIVIDEND,
    TRANSFER_IN: TRANSFER_OUT,
    TRANSFER_OUT: TRANSFER_IN,
    INTEREST: FEE,
    FEE: INTEREST,
}


@dataclass
class Signs:
    """What `signed` learns from every row, seen one at a time: a cash column that is never
    negative although money left the account is unsigned."""

    moved: bool = False
    negative: bool = False
    outflow: bool = False

    def saw(self, p: Parsed) -> None:
        if p.cash_change:
            self.moved = True
            self.negative = self.negative or p.cash_change < 0
            self.outflow = self.outflow or p.kind in _OUTFLOWS

    def unsigned(self) -> bool:
        return self.moved and not self.negative and self.outflow

    def sign(self, p: Parsed) -> Parsed:
        return _by_kind(p) if self.unsigned() else _by_row(p)


def _by_row(p: Parsed) -> Parsed:
    """A cash kind in the direction its row's sign says; amount the money that moved."""
    if p.kind not in _OPPOSITE or not p.cash_change:
        return p
    inflow = p.cash_change > 0
    kind = p.kind if (p.kind in _INFLOWS) == inflow else _OPPOSITE[p.kind]
    return replace(p, kind=kind, amount=round(p.cash_change if inflow else -p.cash_change, 2))


def _by_kind(p: Parsed) -> Parsed:
    """An unsigned column: the row's money, signed the way its kind moves it."""
    if not p.cash_change or p.kind not in _INFLOWS | _OUTFLOWS:
        return p
    return replace(p, cash_change=p.cash_change if p.kind in _INFLOWS else -p.cash_change)


def signed(parsed: list[Parsed]) -> list[Parsed]:
    """Every row with the kind and the signed cash change its money says."""
    signs = Signs()
    for p in parsed:
        signs.saw(p)
    return [signs.sign(p) for p in parsed]
