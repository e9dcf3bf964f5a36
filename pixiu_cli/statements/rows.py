"""One statement row as a fill, a skipped row (with its reason) or a summary line; a cell
that does not read raises BadCell naming the row and the field."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pixiu_cli.domain.account import BONUS, HOLDING_CASH_KINDS, SHARE_KINDS
from pixiu_cli.statements.columns import FEE_FIELDS, Columns
from pixiu_cli.statements.kinds import REPO_CODE, REPO_REASON, kind_of
from pixiu_cli.statements.table import Row
from pixiu_cli.statements.values import code_of, day_of, number_of, time_of

_SUMMARY = re.compile(r"合计|汇总|总计|共计|小计|^共\s*\d+|查询|打印|币种|人民币|^[-=\s]+$")


class BadCell(ValueError):
    def __init__(self, line: int, header: str, value: str, problem: str):
        super().__init__(f"第 {line} 行「{header}」：{problem} {value!r}")
        self.line = line


@dataclass(frozen=True)
class Parsed:
    """A row that counts, before it gets its id."""

    line: int
    day: str
    time: str | None
    kind: str
    symbol: str | None
    name: str | None
    quantity: float
    price: float
    amount: float
    fees: float
    cash_change: float | None
    balance: float | None
    account: str | None
    contract: str | None


@dataclass(frozen=True)
class Skipped:
    line: int
    reason: str
    day: str | None = None
    balance: float | None = None  # a skipped row's 资金余额 still says what the cash was


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
        return sum(abs(self.number(f) or 0.0) for f in FEE_FIELDS)


def _summary(row: Row) -> bool:
    return any(_SUMMARY.search(cell) for cell in row.cells if cell)


def read_row(row: Row, columns: Columns) -> Parsed | Skipped | None:
    """None for a title, summary or blank line."""
    cells = _Cells(row, columns)
    raw_day = cells.text("day")
    day = day_of(raw_day)
    if day is None:
        if not raw_day or _summary(row) or not any(ch.isdigit() for ch in raw_day):
            return None
        raise BadCell(row.line, cells.header("day"), raw_day, "不是日期")
    kind, reason = kind_of(cells.text("action"))
    if kind is not None and REPO_CODE.fullmatch(cells.text("symbol")):
        kind, reason = None, REPO_REASON
    if kind is None:
        return Skipped(row.line, reason, day, cells.number("balance"))
    time = time_of(cells.text("time")) if columns.has("time") else None
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


def _share_row(cells: _Cells, day: str, time: str | None, kind: str) -> Parsed | Skipped:
    symbol = _symbol(cells, required=True)
    quantity = abs(cells.number("quantity") or 0.0)
    if quantity == 0:
        return Skipped(cells.row.line, "成交数量为 0（未成交或撤单）")
    price = abs(cells.number("price") or 0.0)
    amount = abs(cells.number("amount") or 0.0) or quantity * price
    if kind == BONUS:
        price, amount = 0.0, 0.0
    elif price == 0 and amount:
        price = round(amount / quantity, 4)
    elif price == 0:
        header = cells.header("price") if cells.columns.has("price") else "成交价格"
        raise BadCell(cells.row.line, header, cells.text("price"), "缺少成交价格")
    return _parsed(cells, day, time, kind, symbol, quantity, price, amount)


def _cash_row(cells: _Cells, day: str, time: str | None, kind: str) -> Parsed | Skipped:
    change = cells.number("cash_change")
    amount = abs(change or 0.0) or abs(cells.number("amount") or 0.0)
    if amount == 0:
        return Skipped(cells.row.line, "金额为 0")
    symbol = _symbol(cells, required=True) if kind in HOLDING_CASH_KINDS else None
    return _parsed(cells, day, time, kind, symbol, 0.0, 0.0, amount)


def _parsed(cells: _Cells, day, time, kind, symbol, quantity, price, amount) -> Parsed:
    contract = cells.text("trade_no") or cells.text("contract") or None
    return Parsed(
        cells.row.line,
        day,
        time,
        kind,
        symbol,
        cells.text("name") or None,
        quantity,
        price,
        round(amount, 2),
        round(cells.fees(), 2),
        cells.number("cash_change"),
        cells.number("balance"),
        cells.text("account") or None,
        contract,
    )
