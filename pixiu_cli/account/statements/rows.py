"""One statement row as a fill, a skipped row (with its reason) or a summary line; a cell
that does not read, or a day after today, raises BadCell naming the row.

A cash row keeps the sign its cash column gives (signs.py decides its direction from it);
the money and the shares of a new issue may come on two rows (ipo.py pairs them)."""

from __future__ import annotations

import re
from dataclasses import KW_ONLY, dataclass, fields

from pixiu_cli.account.model import ALLOTMENT, BONUS, HOLDING_CASH_KINDS, ORDER_NUMBER, SHARE_KINDS, TRADE_NUMBER, Fill
from pixiu_cli.account.statements.columns import FEE_FIELDS, Columns
from pixiu_cli.account.statements.kinds import IPO_PAYMENT, REPO_CODE, REPO_REASON, kind_of
from pixiu_cli.account.statements.table import Row
from pixiu_cli.account.statements.values import code_of, day_of, number_of, time_of

_SUMMARY = re.compile(r"合计|汇总|总计|共计|小计|^共\s*\d+|查询|打印|币种|人民币|^[-=\s]+$")
# A security's name as clients print it (*ST康美, 万科A, N盛景微, 平银转债): letters, digits
# and a few marks. Anything else (a spreadsheet formula, markup, a link) is no name: the
# name pixiu shows is the security master's in any case, the statement's only a fallback.
_NAME = re.compile(r"[\w*&.\- ]{1,20}")


class BadCell(ValueError):
    def __init__(self, line: int, header: str, value: str, problem: str):
        super().__init__(f"第 {line} 行「{header}」：{problem} {value!r}")
        self.line = line


class ShiftedRow(BadCell):
    """More cells than the header has columns: a comma inside a field (an unquoted name) has
    moved every later cell one column on, so no cell of the row can be trusted."""

    def __init__(self, line: int, cells: int, columns: int):
        ValueError.__init__(
            self, f"第 {line} 行有 {cells} 列，表头只有 {columns} 列（字段中有未加引号的逗号？各列已错位）"
        )
        self.line = line


class FutureRow(BadCell):
    """A row dated after today: a statement cannot know it, so it is a wrong date."""

    def __init__(self, line: int, day: str, today: str):
        ValueError.__init__(self, f"第 {line} 行的日期 {day} 晚于今天（{today}）")
        self.line = line


@dataclass(frozen=True)
class Parsed(Fill):
    """A row that counts: the fill it is, before it gets its id (`fill_id` is ""), and the
    line of the file it was read from."""

    _: KW_ONLY
    line: int

    def numbered(self, fill_id: str) -> Fill:
        """The fill itself, with its id (positional: a statement of a million rows makes a
        million of them)."""
        return Fill(fill_id, *(getattr(self, name) for name in _AFTER_THE_ID))


_AFTER_THE_ID = tuple(f.name for f in fields(Fill))[1:]


@dataclass(frozen=True)
class Skipped:
    line: int
    reason: str
    day: str | None = None
    balance: float | None = None  # a skipped row's 资金余额 still says what the cash was
    unknown: str | None = None  # the business name, when pixiu does not know it


class _Cells:
    def __init__(self, row: Row, columns: Columns):
        self.row, self.columns = row, columns

    def text(self, field: str) -> str:
        i = self.columns.index.get(field)
        return self.row.cells[i] if i is not None and i < len(self.row.cells) else ""

    def header(self, field: str) -> str:
        return self.columns.headers[self.columns.index[field]]

    def number(self, field: str) -> float | None:
        raw = self.text(field)
        try:
            return number_of(raw)
        except ValueError:
            raise BadCell(self.row.line, self.header(field), raw, "不是数字") from None

    def fees(self) -> float:
        total = 0.0
        for field in FEE_FIELDS:
            value = self.number(field) or 0.0
            if value < 0:
                raise BadCell(self.row.line, self.header(field), self.text(field), "费用不能为负")
            total += value
        return total

    def width(self) -> int:
        """The cells up to the last one that is not empty."""
        return max((i + 1 for i, cell in enumerate(self.row.cells) if cell), default=0)


def _summary(row: Row) -> bool:
    return any(_SUMMARY.search(cell) for cell in row.cells if cell)


def read_row(row: Row, columns: Columns, today: str) -> Parsed | Skipped | None:
    """None for a title, summary or blank line."""
    cells = _Cells(row, columns)
    raw_day = cells.text("day")
    day = day_of(raw_day)
    if day is None:
        if not raw_day or _summary(row) or not any(ch.isdigit() for ch in raw_day):
            return None
        raise BadCell(row.line, cells.header("day"), raw_day, "不是日期")
    if cells.width() > len(columns.headers):
        raise ShiftedRow(row.line, cells.width(), len(columns.headers))
    if day > today:
        raise FutureRow(row.line, day, today)
    action = cells.text("action")
    kind, reason = kind_of(action)
    if kind is not None and REPO_CODE.fullmatch(cells.text("symbol")):
        kind, reason = None, REPO_REASON
    if kind is None:
        unknown = None if reason else action.replace(" ", "") or "（空）"
        return Skipped(row.line, reason or f"未识别的业务「{unknown}」", day, cells.number("balance"), unknown)
    time = time_of(cells.text("time")) if columns.has("time") else None
    if kind == IPO_PAYMENT:
        return _payment_row(cells, day, time)
    if kind in SHARE_KINDS:
        return _share_row(cells, day, time, kind)
    return _cash_row(cells, day, time, kind)


def _symbol(cells: _Cells, required: bool) -> str | None:
    raw = cells.text("symbol")
    code = code_of(raw)
    if code is None and required:
        header = cells.header("symbol") if cells.columns.has("symbol") else "证券代码"
        raise BadCell(cells.row.line, header, raw, "不是六位股票代码")
    return code


def _size(cells: _Cells) -> tuple[float, float, float]:
    """Shares, price and gross value: sizes (some clients sign a sale's 成交数量)."""
    quantity = abs(cells.number("quantity") or 0.0)
    price = abs(cells.number("price") or 0.0)
    return quantity, price, abs(cells.number("amount") or 0.0) or quantity * price


def _share_row(cells: _Cells, day: str, time: str | None, kind: str) -> Parsed | Skipped:
    symbol = _symbol(cells, required=True)
    quantity, price, amount = _size(cells)
    if quantity == 0:
        return Skipped(cells.row.line, "成交数量为 0（未成交或撤单）")
    if kind == BONUS:
        price, amount = 0.0, 0.0
    elif price == 0 and amount:
        price = round(amount / quantity, 4)
    elif price == 0 and kind != ALLOTMENT:  # new shares at 0: their money may be on another row
        header = cells.header("price") if cells.columns.has("price") else "成交价格"
        raise BadCell(cells.row.line, header, cells.text("price"), "缺少成交价格")
    return _parsed(cells, day, time, kind, symbol, quantity, price, amount)


def _cash_row(cells: _Cells, day: str, time: str | None, kind: str) -> Parsed | Skipped:
    """The amount as the cash column signs it (signs.py turns it into the kind's direction),
    or the 成交金额, a size that is never signed, when the statement has no cash column."""
    amount = cells.number("cash_change") or abs(cells.number("amount") or 0.0)
    if amount == 0:
        return Skipped(cells.row.line, "金额为 0")
    symbol = _symbol(cells, required=True) if kind in HOLDING_CASH_KINDS else None
    return _parsed(cells, day, time, kind, symbol, 0.0, 0.0, amount)


def _payment_row(cells: _Cells, day: str, time: str | None) -> Parsed | Skipped:
    """The money for new shares, with the shares and price when the row has them."""
    quantity, price, amount = _size(cells)
    change = cells.number("cash_change")
    if (change if cells.columns.has("cash_change") else amount) in (None, 0):
        return Skipped(cells.row.line, "新股中签通知（股份按新股入账计入）", day, cells.number("balance"))
    return _parsed(cells, day, time, IPO_PAYMENT, _symbol(cells, required=False), quantity, price, amount)


def _parsed(cells: _Cells, day, time, kind, symbol, quantity, price, amount) -> Parsed:
    trade_no = cells.text("trade_no")
    contract = trade_no or cells.text("contract") or None
    name = cells.text("name")
    return Parsed(
        "",
        day,
        time,
        kind,
        symbol,
        name if _NAME.fullmatch(name) else None,
        quantity,
        price,
        round(amount, 2),
        round(cells.fees(), 2),
        cells.number("cash_change"),
        cells.number("balance"),
        cells.text("account") or None,
        contract,
        contract_kind=(TRADE_NUMBER if trade_no else ORDER_NUMBER) if contract else None,
        line=cells.row.line,
    )
