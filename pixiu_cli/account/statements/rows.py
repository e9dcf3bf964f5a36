"""What a statement row's business name (业务名称 / 操作 / 摘要) means: a kind of fill, a
row pixiu does not count (with the reason, reported), or a name pixiu does not know
(listed with its count, never dropped unseen).

The names are the ones mainland clients write: 通达信, 同花顺, 东方财富 and the brokers'
own exports (华泰, 中信, 招商, 国泰君安 …) name one business many ways (股息红利税补缴,
股息红利差异扣税, 红利差异税扣税, 股息个税征收 …).

One cell as a value: a day, a time, a number, a stock code, as clients spell them
(2025-03-03, 2025/3/3, 20250303, 2025年3月3日; 09:31:05, 093105; 1,234.50, ¥-12.00).

One statement row as a fill, a skipped row (with its reason) or a summary line; a cell
that does not read, or a day after today, raises BadCell naming the row.

A cash row keeps the sign its cash column gives (signs.py decides its direction from it);
the money and the shares of a new issue may come on two rows (ipo.py pairs them).

Which way a cash row's money went: the sign of its cash column (发生金额, 清算金额 …),
never the name alone. A 股息红利扣税 of −12.30 is 12.30 out; a name pixiu files as a
dividend whose row says −5.00 (a reversal) is 5.00 out, a tax row that says +5.00 (a
refund) is 5.00 in. Only a column that is never negative although money left the account
(a buy, a transfer out) is unsigned: then the kind says the direction.

Values no statement row could mean, refused with the row and the column they are in, as
the market CSVs are (domain/plausible.py): a day before the market opened or one the
exchanges were shut (a trade on a Saturday), shares nobody could hold or not whole, a price
no A-share had, money no account moves, fees that are most of the trade. The calendar is the
caller's (`closed`): the statement reader knows none.

The one error a statement that cannot be read raises."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import KW_ONLY, dataclass, fields, replace
from datetime import date
from functools import lru_cache

from pixiu_cli.account.model import (
    ALLOTMENT,
    BONUS,
    BUY,
    DIVIDEND,
    DIVIDEND_TAX,
    FEE,
    FILL_KINDS,
    HOLDING_CASH_KINDS,
    INTEREST,
    IPO_PAYMENT,
    ORDER_NUMBER,
    RIGHTS,
    SELL,
    SHARE_KINDS,
    TRADE_NUMBER,
    TRANSFER_IN,
    TRANSFER_OUT,
    Fill,
)
from pixiu_cli.account.statements.columns import FEE_FIELDS, FIELD_NAMES, Columns
from pixiu_cli.account.statements.table import Row
from pixiu_cli.kernel.errors import UserError
from pixiu_cli.kernel.vocabulary import normalise_code
from pixiu_cli.market.plausible import fill_problems

_REPO = "国债逆回购（借出的资金在资金余额中）"
_SUBSCRIPTION = "新股申购、配号或退款（中签后按新股入账计入）"
_RIGHTS_SHARES = "配股股份到账（已按配股缴款计入）"
_CASH_PRODUCT = "现金理财或货币基金申赎（资金在资金余额中）"
_FROZEN = "资金或证券冻结、解冻（资金在资金余额中）"
_CORRECTION = "资金冲正（已在资金余额中）"

# The money paid for new shares (新股申购确认缴款, 中签缴款 …) on its own row is IPO_PAYMENT:
# ipo.py pairs it with the row that credits the shares (新股入帐).
# Checked in order, the first pattern the name contains wins: the longer business before
# the word it contains (新股申购确认缴款 before 申购, 股息红利扣税 before 股息, 配股缴款
# before 缴款, 利息税 before 利息). A str is the reason a row is skipped.
_RULES: tuple[tuple[str, str], ...] = (
    ("确认缴款", IPO_PAYMENT),
    ("中签缴款", IPO_PAYMENT),
    ("缴中签款", IPO_PAYMENT),
    ("中签扣款", IPO_PAYMENT),
    ("中签款", IPO_PAYMENT),
    ("中签资金", IPO_PAYMENT),
    ("中签成本", IPO_PAYMENT),
    ("配售缴款", IPO_PAYMENT),
    ("申购中签", IPO_PAYMENT),
    ("中签通知", IPO_PAYMENT),
    ("新股入", ALLOTMENT),
    ("中签入", ALLOTMENT),
    ("配股缴款", RIGHTS),
    ("配股认购", RIGHTS),
    ("配股入", _RIGHTS_SHARES),
    ("配股上市", _RIGHTS_SHARES),
    ("配股权证", "配股权证到账（认购时按配股缴款计入）"),
    ("配股", RIGHTS),
    ("回购", _REPO),
    ("购回", _REPO),
    ("拆出", _REPO),
    ("基金资金拨", _CASH_PRODUCT),
    ("保证金产品", _CASH_PRODUCT),
    ("货币基金", _CASH_PRODUCT),
    ("申购", _SUBSCRIPTION),
    ("配号", _SUBSCRIPTION),
    ("撤单", "撤单"),
    ("指定", "指定交易"),
    ("冻结", _FROZEN),
    ("红冲", _CORRECTION),
    ("蓝补", _CORRECTION),
    ("红利税", DIVIDEND_TAX),
    ("股息税", DIVIDEND_TAX),
    ("差异税", DIVIDEND_TAX),
    ("差别税", DIVIDEND_TAX),
    ("红利差异", DIVIDEND_TAX),
    ("扣税", DIVIDEND_TAX),
    ("个税", DIVIDEND_TAX),
    ("所得税", DIVIDEND_TAX),
    ("利息税", FEE),  # after 红利税, which contains 利税
    ("利税", FEE),
    ("红股", BONUS),
    ("送股", BONUS),
    ("转增", BONUS),
    ("股息", DIVIDEND),
    ("红利", DIVIDEND),
    ("派息", DIVIDEND),
    ("分红", DIVIDEND),
    ("银证转入", TRANSFER_IN),
    ("银行转证券", TRANSFER_IN),
    ("银行转存", TRANSFER_IN),
    ("银行转入", TRANSFER_IN),
    ("银证转帐存", TRANSFER_IN),
    ("银证转账存", TRANSFER_IN),
    ("入金", TRANSFER_IN),
    ("银证转出", TRANSFER_OUT),
    ("证券转银行", TRANSFER_OUT),
    ("银行转取", TRANSFER_OUT),
    ("银行转出", TRANSFER_OUT),
    ("银证转帐取", TRANSFER_OUT),
    ("银证转账取", TRANSFER_OUT),
    ("出金", TRANSFER_OUT),
    ("利息", INTEREST),
    ("结息", INTEREST),
    ("扣费", FEE),
    ("扣收", FEE),
    ("收费", FEE),
    ("组合费", FEE),
    ("卖", SELL),
    ("买", BUY),
)
_COUNTED = {*FILL_KINDS, IPO_PAYMENT}

# 国债逆回购 codes (上交所 204xxx, 深交所 1318xx): a "sell" of one lends cash overnight
REPO_CODE = re.compile(r"204\d{3}|1318\d{2}")
REPO_REASON = _REPO


@lru_cache(maxsize=4096)  # a statement repeats a few business names over every row
def kind_of(action: str) -> tuple[str | None, str | None]:
    """(kind, None) for a counted row, (None, reason) for a skipped one, (None, None) for a
    name pixiu does not know."""
    text = action.replace(" ", "")
    for pattern, meaning in _RULES:
        if pattern in text:
            return (meaning, None) if meaning in _COUNTED else (None, meaning)
    return None, None


_DAY = re.compile(r"(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})\s*日?")
_COMPACT_DAY = re.compile(r"(\d{4})(\d{2})(\d{2})")
_TIME = re.compile(r"(\d{1,2}):?(\d{2}):?(\d{2})?")
_EMPTY = {"", "-", "--", "—", "null", "none"}


def day_of(text: str) -> str | None:
    """YYYY-MM-DD, or None when the cell is no date."""
    match = _DAY.fullmatch(text) or _COMPACT_DAY.fullmatch(text)
    if not match:
        return None
    try:
        return date(*(int(g) for g in match.groups())).isoformat()
    except ValueError:
        return None


def time_of(text: str) -> str | None:
    match = _TIME.fullmatch(text.strip())
    if not match:
        return None
    hour, minute, second = match.group(1), match.group(2), match.group(3) or "00"
    if int(hour) > 23 or int(minute) > 59 or int(second) > 59:
        return None
    return f"{int(hour):02d}:{minute}:{second}"


def number_of(text: str) -> float | None:
    """The number a cell spells, None for an empty one; ValueError for anything else."""
    try:  # most cells are a plain number; the rest are read as below
        value = float(text)
    except ValueError:
        pass
    else:
        if not math.isfinite(value):
            raise ValueError(text)
        return value
    cleaned = text.replace(",", "").replace("¥", "").replace("￥", "").replace(" ", "")
    if cleaned.lower() in _EMPTY:
        return None
    value = float(cleaned)  # raises ValueError
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def code_of(text: str) -> str | None:
    """Six ASCII digits, however the client spelled them (６００５１９); a code Excel stripped
    of its leading zeros (333) gets them back."""
    digits = text.strip()
    return normalise_code(digits.zfill(6)) if 0 < len(digits) <= 6 else None


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


class StatementError(UserError):
    """The message is one line: what was found and what was needed, or the row and field."""
