"""A statement file as fills: find the header among title lines, map its columns, read
every row, sign its cash from the row, pair new shares with their payment, give each fill
its stable id, and say what was skipped and which business names are unknown. A file with
a bad cell or a row dated after today reads as nothing (StatementError) unless the caller
asks to skip bad rows. Today is the caller's: the reader has no clock.

The clients' statement layouts pixiu knows by name, each by the columns that tell it
apart. Any file whose header maps (columns.py) is read; the name is what the user sees, and
`--broker NAME` checks the file has that client's columns (one client may export more than
one layout: 通达信's 交割单 and 资金对账单).

Rows put in any order and taken out sorted, in bounded memory: each run of RUN rows is
sorted and written to a temporary file in blocks, and the runs are merged a block of each
at a time. A statement of a million rows is sorted holding a few thousand.

New shares whose money and shares come on separate rows: 通达信 and the brokers' own
exports book the payment (新股申购确认缴款, 中签缴款, 市值申购中签扣款 and its 回冲 …) on
one row and the shares (新股入帐, at price 0, sometimes under the listing code rather than
the subscription code) on another. Paired, they are one allotment: the shares at the price
paid. Counting both would count the shares twice, or at nothing."""

from __future__ import annotations

import hashlib
import heapq
import marshal
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import date
from itertools import chain, groupby, islice
from pathlib import Path
from typing import IO

from pixiu_cli.account.model import ALLOTMENT, TRADE_NUMBER, CashBalance, Fill
from pixiu_cli.account.statements.columns import Columns, looks_like_header, map_header, needed_text
from pixiu_cli.account.statements.decode import decode, encoding_of, text_lines
from pixiu_cli.account.statements.rows import (
    IPO_PAYMENT,
    BadCell,
    Closed,
    Parsed,
    Signs,
    Skipped,
    StatementError,
    check_parsed,
    check_skipped,
    read_row,
)
from pixiu_cli.account.statements.table import Row, line_rows, looks_like_html, rows, separator


@dataclass(frozen=True)
class Layout:
    key: str
    label: str
    signature: tuple[str, ...]  # header names only this client's export has together


LAYOUTS = (
    Layout("ths", "同花顺交割单", ("成交日期", "操作", "成交均价")),
    Layout("tdx", "通达信交割单", ("交割日期", "业务名称")),
    Layout("tdx", "通达信对账单", ("发生日期", "业务名称", "清算金额")),
    Layout("eastmoney", "东方财富交割单", ("发生日期", "业务名称", "成交价格", "发生金额")),
)
BROKERS = ("auto", *dict.fromkeys(layout.key for layout in LAYOUTS))
GENERIC = "通用对账单"
_ANY_CLIENT = "账户"  # what an account made from a statement of no known client is named after


def client_of(layout: str) -> str:
    """同花顺 of 同花顺交割单: the client an account a statement made is named after."""
    short = layout.removesuffix("交割单").removesuffix("对账单")
    return short if short and layout != GENERIC else _ANY_CLIENT


def _headers(columns: Columns) -> set[str]:
    return {h.replace(" ", "") for h in columns.headers}


def detect_layout(columns: Columns) -> str:
    found = _headers(columns)
    for layout in LAYOUTS:
        if set(layout.signature) <= found:
            return layout.label
    return GENERIC


def require_layout(columns: Columns, broker: str) -> str:
    found = _headers(columns)
    candidates = [x for x in LAYOUTS if x.key == broker]
    missing = {x: [h for h in x.signature if h not in found] for x in candidates}
    closest = min(candidates, key=lambda x: len(missing[x]))
    if missing[closest]:
        listed = "、".join(h for h in columns.headers if h)
        raise StatementError(
            f"这不像{closest.label}：缺少列 {'、'.join(missing[closest])}；文件中的列：{listed}（不确定时用 --broker auto）"
        )
    return closest.label


RUN = 50_000
_BLOCK = 1_000


class SortedSpill:
    def __init__(self, key: Callable[[tuple], tuple], run: int | None = None):
        self.key, self.run = key, run or RUN
        self._rows: list[tuple] = []
        self._file: IO[bytes] | None = None
        self._runs: list[int] = []  # where each spilled run starts in the file

    def add(self, row: tuple) -> None:
        """`row` holds only what marshal writes: str, int, float, bool, None, tuples."""
        self._rows.append(row)
        if len(self._rows) >= self.run:
            self._spill()

    def _spill(self) -> None:
        if self._file is None:
            self._file = tempfile.TemporaryFile()
        self._rows.sort(key=self.key)
        self._file.seek(0, 2)
        self._runs.append(self._file.tell())
        for start in range(0, len(self._rows), _BLOCK):
            marshal.dump(self._rows[start : start + _BLOCK], self._file)
        marshal.dump(None, self._file)
        self._rows = []

    def _read(self, offset: int) -> Iterator[tuple]:
        position = offset
        while True:
            self._file.seek(position)
            block = marshal.load(self._file)
            position = self._file.tell()  # the other runs move the shared file between blocks
            if block is None:
                return
            yield from block

    def __iter__(self) -> Iterator[tuple]:
        self._rows.sort(key=self.key)
        if not self._runs:
            yield from self._rows
            return
        yield from heapq.merge(*(self._read(o) for o in self._runs), iter(self._rows), key=self.key)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


_REFUNDED = "新股中签扣款已退回（未成交）"
_NO_SHARES = "新股缴款（没有证券代码，无法与新股入账对应，股份未计入）"

Group = list[Parsed]  # the payment rows of one subscription, in file order


def _cash(rows: list[Parsed]) -> float | None:
    changes = [r.cash_change for r in rows if r.cash_change is not None]
    return round(sum(changes), 2) if changes else None


def _paid(group: Group, rows: list[Parsed]) -> float:
    """What left the account for `rows`: their cash column's sum when the statement has
    one, else the payments' amounts (a 新股入帐's own 成交金额 is no money)."""
    cash = _cash(rows)
    return round(-cash if cash is not None else sum(r.amount for r in group), 2)


def _groups(payments: list[Parsed]) -> list[Group]:
    by_key: dict[tuple, Group] = {}
    for p in payments:
        by_key.setdefault((p.account, p.symbol) if p.symbol else ("line", p.line), []).append(p)
    return list(by_key.values())


def _shares(group: Group) -> float:
    return max(r.quantity for r in group)


def _same_holder(a: Parsed, b: Parsed) -> bool:
    return not (a.account and b.account) or a.account == b.account


def _match(allotment: Parsed, groups: list[Group]) -> Group | None:
    """The same code, else the same contract number, else the only payment for as many
    shares (the shares arrive under the listing code, the money left under another)."""
    open_ = [g for g in groups if g[0].day <= allotment.day and _same_holder(g[0], allotment)]
    by_code = [g for g in open_ if g[0].symbol == allotment.symbol]
    by_contract = [g for g in open_ if allotment.contract and any(r.contract == allotment.contract for r in g)]
    by_size = [g for g in open_ if _shares(g) == allotment.quantity]
    found = by_code or by_contract or (by_size if len(by_size) == 1 else [])
    return found[0] if found else None


def _allotment(group: Group, rows: list[Parsed], shares: float, **fields) -> Parsed:
    """One allotment dated when the money left: the shares at the price paid, fees apart."""
    fees = round(sum(r.fees for r in rows), 2)
    gross = round(_paid(group, rows) - fees, 2)
    price = round(gross / shares, 4)
    return replace(
        group[0], kind=ALLOTMENT, quantity=shares, price=price, amount=gross, fees=fees, cash_change=_cash(rows),
        balance=group[-1].balance, **fields,
    )  # fmt: skip


def _merged(allotment: Parsed, group: Group) -> Parsed:
    first = group[0]
    numbered = first if first.contract else allotment
    return _allotment(
        group, [*group, allotment], allotment.quantity, symbol=allotment.symbol, name=allotment.name or first.name,
        account=allotment.account or first.account, contract=numbered.contract, contract_kind=numbered.contract_kind,
    )  # fmt: skip


def _alone(group: Group) -> Parsed | list[Skipped]:
    """A payment no row of shares answers: an allotment when it names its shares, else the
    payment alone, for a later statement's shares to join (domain/fill_match.py)."""
    money, shares = _paid(group, group), _shares(group)
    if money and shares and group[0].symbol:
        return _allotment(group, group, shares)
    if money and group[0].symbol:
        fees = round(sum(r.fees for r in group), 2)
        return replace(
            group[0], quantity=0.0, price=0.0, amount=round(money - fees, 2), fees=fees, cash_change=_cash(group),
            balance=group[-1].balance,
        )  # fmt: skip
    reason = _NO_SHARES if money else _REFUNDED
    return [Skipped(r.line, reason, r.day, r.balance) for r in group]


def pair_new_shares(parsed: list[Parsed]) -> tuple[list[Parsed], list[Skipped]]:
    """The rows with every payment joined to its shares (in the file's order), and the
    payments nothing answers that stay skipped, with why."""
    placed, skipped = placed_new_shares(parsed)
    return [p for _, p in placed], skipped


def placed_new_shares(parsed: list[Parsed]) -> tuple[list[tuple[int, Parsed]], list[Skipped]]:
    """`pair_new_shares`, each row with the line of the row whose place in the file it takes
    (an allotment joined to its payment keeps the payment's fields but the shares' place)."""
    groups = _groups([p for p in parsed if p.kind == IPO_PAYMENT])
    if not groups:
        return [(p.line, p) for p in parsed], []
    waiting = [g for g in groups if _paid(g, g)]  # a payment refunded in full pairs with nothing
    matched: dict[int, Group] = {}
    for p in parsed:
        group = _match(p, waiting) if p.kind == ALLOTMENT else None
        if group is not None:
            waiting.remove(group)
            matched[p.line] = group
    alone = {g[0].line: _alone(g) for g in groups if g not in matched.values()}
    out: list[tuple[int, Parsed]] = []
    skipped: list[Skipped] = []
    for p in parsed:
        if p.line in matched:
            out.append((p.line, _merged(p, matched[p.line])))
        elif isinstance(alone.get(p.line), Parsed):
            out.append((p.line, alone[p.line]))
        elif p.line in alone:
            skipped += alone[p.line]
        elif p.kind != IPO_PAYMENT:
            out.append((p.line, p))
    return out, skipped


@dataclass(frozen=True)
class Statement:
    layout: str  # the client whose columns these are (同花顺 …), or 通用
    fills: tuple[Fill, ...]  # in the order they happened
    skipped: tuple[Skipped, ...]  # rows of a business pixiu knows and does not count
    bad: tuple[BadCell, ...]  # only with skip_bad
    accounts: frozenset[str]
    cash: CashBalance | None  # the balance after the last row that states one
    unknown: dict[str, int]  # business names pixiu does not know → rows, the most first
    unpaid: tuple[Fill, ...]  # new shares at price 0: no payment for them in the file


_FIELDS = tuple(Parsed.__dataclass_fields__)
_SAMPLE = 1000  # lines that decide a text file's separator


def _text_table(path: Path) -> Iterator[Row]:
    """A text statement's rows, read a line at a time; an HTML table or a workbook whole."""
    encoding = encoding_of(path)
    lines = text_lines(path, encoding)
    head = list(islice(lines, _SAMPLE))
    if looks_like_html("\n".join(head)):
        return iter(rows(decode(path.read_bytes()), looks_like_header))
    return line_rows(chain(head, lines), separator(head), looks_like_header)


def _table(path: Path) -> Iterator[Row]:
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
        if magic.startswith((b"PK\x03\x04", b"\xd0\xcf\x11\xe0")):  # a workbook: only then its reader
            from pixiu_cli.account.statements.workbook import XLSX_MAGIC, xls_rows, xlsx_rows

            return iter(xlsx_rows(path.read_bytes()) if magic.startswith(XLSX_MAGIC) else xls_rows(path.read_bytes()))
        return _text_table(path)
    except OSError as exc:
        raise StatementError(f"无法读取 {path}：{exc.strerror or type(exc).__name__}") from None


def _header(table: Iterator[Row]) -> Columns:
    seen = []
    for row in table:
        if looks_like_header(row.cells):
            return map_header(row.cells)
        if len(seen) < 20:
            seen.append(row)
    widest = max(seen, key=lambda r: len(r.cells), default=None)
    found = "、".join(c for c in widest.cells if c)[:200] if widest else "（空文件）"
    raise StatementError(f"无法识别对账单的列：找到 {found}；需要 {needed_text()}")


def _fill_id(p: Parsed, seen: Counter) -> str:
    """The broker's own number where the statement has one, else a digest of the fields;
    with the n-th occurrence of the same key, so two identical rows (partial fills of one
    order, under its 合同编号, or rows without a number) stay two. A 成交编号 names one fill:
    the same one twice is one row written twice."""
    if p.contract:
        key = f"c|{p.account or ''}|{p.day}|{p.symbol or ''}|{p.kind}|{p.contract}"
    else:
        key = f"h|{p.account or ''}|{p.day}|{p.time or ''}|{p.symbol or ''}|{p.kind}|{p.quantity:g}|{p.price:g}|{p.amount:.2f}"
    seen[key] = 1 if p.contract_kind == TRADE_NUMBER else seen[key] + 1
    return hashlib.sha256(f"{key}|{seen[key]}".encode()).hexdigest()[:16]


_REPEATED = "重复的成交编号（同一笔成交写了两次）"


@dataclass
class _Facts:
    """What the whole file says, learnt a row at a time: how its cash column is signed,
    its first and last day, the balance after the last row that states one (skipped rows
    included: what they moved is in the balance even when pixiu does not count them)."""

    signs: Signs = field(default_factory=Signs)
    first_day: str | None = None
    last_day: str | None = None
    parsed: int = 0
    first_stated: tuple[int, str] | None = None  # (line, day) of the first and last rows stating a balance
    last_stated: tuple[int, str] | None = None
    latest: tuple | None = None  # the balance latest by (day, line), and by (day, −line)
    latest_reversed: tuple | None = None
    top_day: str = ""  # the latest day of a row that counts, new shares apart

    def saw(self, p: Parsed) -> None:
        self.signs.saw(p)
        self.first_day = self.first_day or p.day
        self.last_day = p.day
        self.parsed += 1
        self.stated(p.line, p.day, p.balance)

    def stated(self, line: int, day: str | None, balance: float | None) -> None:
        if balance is None or not day:
            return
        if self.first_stated is None or line < self.first_stated[0]:
            self.first_stated = (line, day)
        if self.last_stated is None or line > self.last_stated[0]:
            self.last_stated = (line, day)
        if self.latest is None or (day, line) > self.latest[:2]:
            self.latest = (day, line, balance)
        if self.latest_reversed is None or (day, -line) > self.latest_reversed[:2]:
            self.latest_reversed = (day, -line, balance)

    def descending(self) -> bool:
        """Listed newest first (its rows then read oldest first)."""
        return self.parsed > 1 and self.first_day > self.last_day

    def cash(self) -> CashBalance | None:
        if self.latest is None:
            return None
        newest_first = self.first_stated[1] > self.last_stated[1]
        day, _, balance = self.latest_reversed if newest_first else self.latest
        return CashBalance(balance, day, "statement")


def _order(row: tuple) -> tuple:
    return row[:3]


@dataclass
class StatementStream:
    """A statement read once: what it says of itself, and its fills a day at a time
    (`days`), oldest first. `skipped` gains the rows `days` finds written twice, and
    `unpaid` the new shares at price 0, as it goes."""

    layout: str
    skipped: list[Skipped]  # rows of a business pixiu knows and does not count
    bad: tuple[BadCell, ...]  # only with skip_bad
    accounts: frozenset[str]
    cash: CashBalance | None
    unknown: dict[str, int]
    unpaid: list[Fill]
    last_day: str  # of the last fill ("" for none)
    _rows: SortedSpill
    _signs: Signs
    _descending: bool
    fund_accounts: frozenset[str] = frozenset()  # the 资金账号 its rows name

    def _ordered(self) -> Iterator[Parsed]:
        """Oldest first; rows of one moment in the file's order (reversed when it lists the
        newest first)."""
        for _, moment in groupby(self._rows, key=lambda r: r[:2]):
            group = list(moment)
            for row in reversed(group) if self._descending else group:
                p = Parsed(*row[4:-1], line=row[-1])  # astuple_parsed's order: the fill's fields, then the line
                yield self._signs.sign(p) if row[3] else p

    def days(self) -> Iterator[list[Fill]]:
        try:
            for _, rows_of_day in groupby(self._ordered(), key=lambda p: p.day):
                yield self._day(rows_of_day)
        finally:
            self._rows.close()

    def _day(self, parsed: Iterable[Parsed]) -> list[Fill]:
        # a fill's id is made of its day: the counts that tell repeated rows apart are the day's
        seen: Counter = Counter()
        out: dict[str, Fill] = {}
        for p in parsed:
            fill_id = _fill_id(p, seen)
            if fill_id in out:
                self.skipped.append(Skipped(p.line, _REPEATED, p.day))
                continue
            out[fill_id] = fill = p.numbered(fill_id)
            if fill.kind == ALLOTMENT and fill.price == 0:
                self.unpaid.append(fill)
        return list(out.values())


def _read_rows(table: Iterator[Row], columns: Columns, skip_bad: bool, today: date, closed: Closed | None):
    """Every row read and checked once: the rows that count into `spill` (unsigned: the
    sign is known only at the end), new shares and their payments kept apart for pairing."""
    facts, spill = _Facts(), SortedSpill(_order)
    new_shares: list[Parsed] = []
    skipped: list[Skipped] = []
    bad: list[BadCell] = []
    accounts: set[str] = set()
    funds: set[str] = set()
    fund = columns.index.get("fund_account")
    for row in table:
        if fund is not None and fund < len(row.cells) and row.cells[fund]:
            funds.add(row.cells[fund])
        try:
            result = read_row(row, columns, today.isoformat())
            if isinstance(result, Parsed):
                check_parsed(result, columns, today, closed)
            elif isinstance(result, Skipped):
                check_skipped(result, columns, today)
        except BadCell as exc:
            bad.append(exc)
            continue
        if isinstance(result, Parsed):
            facts.saw(result)
            if result.kind in (IPO_PAYMENT, ALLOTMENT):
                new_shares.append(result)
            else:
                accounts.add(result.account)
                facts.top_day = max(facts.top_day, result.day)
                spill.add((result.day, result.time or "", result.line, True, *astuple_parsed(result)))
        elif isinstance(result, Skipped):
            skipped.append(result)
            facts.stated(result.line, result.day, result.balance)
    if bad and not skip_bad:
        spill.close()
        more = f"（另有 {len(bad) - 1} 行有误）" if len(bad) > 1 else ""
        raise StatementError(f"{bad[0]}{more}；未导入任何内容（加 --skip-bad 可跳过有误的行）")
    return facts, spill, new_shares, skipped, bad, accounts, frozenset(funds)


def astuple_parsed(p: Parsed) -> tuple:
    return tuple(getattr(p, name) for name in _FIELDS)


def _unknown(skipped: list[Skipped]) -> dict[str, int]:
    counts = Counter(s.unknown for s in skipped if s.unknown)
    return dict(counts.most_common())


def open_statement(
    path: Path, broker: str = "auto", skip_bad: bool = False, *, today: date, closed: Closed | None = None
) -> StatementStream:
    """The statement read through once, its fills left in a sorted spill for `days`."""
    if broker not in BROKERS:
        raise StatementError(f"--broker 只能是 {'、'.join(BROKERS)}，而不是 {broker!r}")
    table = _table(path)
    columns = _header(table)
    layout = require_layout(columns, broker) if broker != "auto" else detect_layout(columns)
    facts, spill, new_shares, skipped, bad, accounts, funds = _read_rows(table, columns, skip_bad, today, closed)
    placed, unanswered = placed_new_shares([facts.signs.sign(p) for p in new_shares])
    for line, p in placed:
        accounts.add(p.account)
        spill.add((p.day, p.time or "", line, False, *astuple_parsed(p)))
    last_day = max([facts.top_day, *(p.day for _, p in placed)])
    return StatementStream(
        layout, skipped + unanswered, tuple(bad), frozenset(a for a in accounts if a), facts.cash(), _unknown(skipped),
        [], last_day, spill, facts.signs, facts.descending(), funds,
    )  # fmt: skip


def read_statement(
    path: Path, broker: str = "auto", skip_bad: bool = False, *, today: date, closed: Closed | None = None
) -> Statement:
    """`closed` says why the exchanges were shut on a day (a trade dated then is refused)."""
    stream = open_statement(path, broker, skip_bad, today=today, closed=closed)
    fills = tuple(f for day in stream.days() for f in day)
    known = tuple(sorted((s for s in stream.skipped if not s.unknown), key=lambda s: s.line))
    return Statement(
        stream.layout, fills, known, stream.bad, stream.accounts, stream.cash, stream.unknown, tuple(stream.unpaid)
    )
