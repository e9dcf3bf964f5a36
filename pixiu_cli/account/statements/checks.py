"""Values no statement row could mean, refused with the row and the column they are in, as
the market CSVs are (domain/plausible.py): a day before the market opened or one the
exchanges were shut (a trade on a Saturday), shares nobody could hold or not whole, a price
no A-share had, money no account moves, fees that are most of the trade. The calendar is the
caller's (`closed`): the statement reader knows none."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import date

from pixiu_cli.account.model import BUY, SELL, SHARE_KINDS
from pixiu_cli.account.statements.columns import FEE_FIELDS, FIELD_NAMES, Columns
from pixiu_cli.account.statements.kinds import IPO_PAYMENT
from pixiu_cli.account.statements.rows import BadCell, Parsed, Skipped
from pixiu_cli.market.plausible import fill_problems

Closed = Callable[[str], str | None]  # a day → why the exchanges were shut that day, or None
_SHARES = (*SHARE_KINDS, IPO_PAYMENT)


class Implausible(BadCell):
    def __init__(self, line: int, header: str, problem: str):
        ValueError.__init__(self, f"第 {line} 行「{header}」：{problem}")
        self.line = line


def _header(columns: Columns, field: str) -> str:
    return columns.headers[columns.index[field]] if columns.has(field) else FIELD_NAMES[field]


def _problems(p: Parsed, today: date, closed: Closed | None) -> Iterator[tuple[str, str | None]]:
    day = date.fromisoformat(p.day)
    yield from fill_problems(
        moves_shares=p.kind in _SHARES, day=day, today=today, quantity=p.quantity, price=p.price, amount=p.amount,
        fees=p.fees, cash_change=p.cash_change, balance=p.balance,
    )  # fmt: skip
    if p.kind in (BUY, SELL) and closed is not None:
        yield "day", closed(p.day)


def check_parsed(p: Parsed, columns: Columns, today: date, closed: Closed | None) -> None:
    """Raises Implausible, naming the row and the column, for the first value no row could mean."""
    for field, problem in _problems(p, today, closed):
        if problem:
            header = _fee_header(columns) if field == "fees" else _header(columns, field)
            raise Implausible(p.line, header, problem)


def check_skipped(s: Skipped, columns: Columns, today: date) -> None:
    """A row pixiu does not count still states a day and a balance the cash is read from."""
    day = date.fromisoformat(s.day) if s.day else None
    for field, problem in fill_problems(moves_shares=False, day=day, today=today, balance=s.balance):
        raise Implausible(s.line, _header(columns, field), problem)


def _fee_header(columns: Columns) -> str:
    return next((_header(columns, f) for f in FEE_FIELDS if columns.has(f)), FIELD_NAMES["commission"])
