"""Positions from fills: shares, both costs brokers and trackers show, realised P&L, fees,
dividends and bonus shares, per stock, in the order the fills happened.

Two costs, because users compare with both: the 摊薄成本 a broker client displays (money
put in minus money taken out, over the shares held: a profitable sale or a dividend lowers
it) and the average cost of the shares still held (a sale leaves it as it was; its gain is
realised P&L). A position sold to nothing starts both afresh."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pixiu_cli.domain.account import ALLOTMENT, BONUS, BUY, DIVIDEND, DIVIDEND_TAX, RIGHTS, SELL, Fill, Position

_EPSILON = 1e-9


@dataclass
class _Book:
    symbol: str
    name: str | None = None
    shares: float = 0.0
    invested: float = 0.0  # for the diluted cost
    basis: float = 0.0  # for the average cost
    realised: float = 0.0
    fees: float = 0.0
    dividends: float = 0.0
    bonus: float = 0.0
    opening: float = 0.0
    last_day: str = ""

    def buy(self, quantity: float, amount: float, fees: float) -> None:
        self.shares += quantity
        self.invested += amount + fees
        self.basis += amount + fees

    def sell(self, quantity: float, price: float, amount: float, fees: float) -> None:
        if quantity > self.shares + _EPSILON:
            # shares bought before the first fill pixiu has: taken at the sale price, so
            # they add no P&L pixiu cannot know
            missing = quantity - self.shares
            self.opening += missing
            self.buy(missing, missing * price, 0.0)
        cost_out = self.basis * quantity / self.shares if self.shares else 0.0
        proceeds = amount - fees
        self.realised += proceeds - cost_out
        self.shares -= quantity
        self.basis -= cost_out
        self.invested -= proceeds
        if self.shares <= _EPSILON:
            self.shares, self.basis, self.invested = 0.0, 0.0, 0.0

    def cash(self, amount: float) -> None:
        """A dividend (positive) or the tax on one (negative)."""
        self.dividends += amount
        self.realised += amount
        self.invested -= amount

    def apply(self, fill: Fill) -> None:
        self.name = fill.name or self.name
        self.last_day = max(self.last_day, fill.day)
        self.fees += fill.fees
        if fill.kind in (BUY, ALLOTMENT, RIGHTS):
            self.buy(fill.quantity, fill.amount, fill.fees)
        elif fill.kind == SELL:
            self.sell(fill.quantity, fill.price, fill.amount, fill.fees)
        elif fill.kind == BONUS:
            self.shares += fill.quantity
            self.bonus += fill.quantity
        elif fill.kind == DIVIDEND:
            self.cash(fill.amount - fill.fees)
        elif fill.kind == DIVIDEND_TAX:
            self.cash(-(fill.amount + fill.fees))

    def position(self) -> Position:
        held = self.shares > _EPSILON
        return Position(
            self.symbol,
            self.name,
            round(self.shares, 6),
            round(self.invested / self.shares, 4) if held else None,
            round(self.basis / self.shares, 4) if held else None,
            round(self.realised, 2),
            round(self.fees, 2),
            round(self.dividends, 2),
            self.bonus,
            self.opening,
            self.last_day,
        )


def positions(fills: Iterable[Fill]) -> dict[str, Position]:
    """Each stock's position after `fills` (taken in the order given: by day, then time,
    then the order the statement lists them)."""
    books: dict[str, _Book] = {}
    for fill in fills:
        if fill.symbol is None:
            continue
        books.setdefault(fill.symbol, _Book(fill.symbol)).apply(fill)
    return {symbol: book.position() for symbol, book in books.items()}
