"""A statement file as fills: find the header among title lines, map its columns, read
every row, sign its cash from the row, pair new shares with their payment, give each fill
its stable id, and say what was skipped and which business names are unknown. A file with
a bad cell or a row dated after today reads as nothing (StatementError) unless the caller
asks to skip bad rows. Today is the caller's: the reader has no clock."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from pixiu_cli.domain.account import ALLOTMENT, TRADE_NUMBER, CashBalance, Fill
from pixiu_cli.statements.checks import Closed, check_parsed, check_skipped
from pixiu_cli.statements.columns import Columns, looks_like_header, map_header, needed_text
from pixiu_cli.statements.decode import decode
from pixiu_cli.statements.errors import StatementError
from pixiu_cli.statements.ipo import pair_new_shares
from pixiu_cli.statements.layouts import BROKERS, detect_layout, require_layout
from pixiu_cli.statements.rows import BadCell, Parsed, Skipped, read_row
from pixiu_cli.statements.signs import signed
from pixiu_cli.statements.table import Row, rows
from pixiu_cli.statements.workbook import XLS_MAGIC, XLSX_MAGIC, xls_rows, xlsx_rows


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


def _table(data: bytes) -> list[Row]:
    if data.startswith(XLSX_MAGIC):
        return xlsx_rows(data)
    if data.startswith(XLS_MAGIC):
        return xls_rows(data)
    return rows(decode(data), looks_like_header)


def _header(table: list[Row]) -> tuple[int, Columns]:
    for i, row in enumerate(table):
        if looks_like_header(row.cells):
            return i, map_header(row.cells)
    widest = max(table[:20], key=lambda r: len(r.cells), default=None)
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


def _descending(parsed: list[Parsed]) -> bool:
    return len(parsed) > 1 and parsed[0].day > parsed[-1].day


_REPEATED = "重复的成交编号（同一笔成交写了两次）"


def _fills(parsed: list[Parsed], descending: bool) -> tuple[tuple[Fill, ...], list[Skipped]]:
    # A statement listed newest first is read oldest first; rows of one moment keep their order.
    order = sorted(range(len(parsed)), key=lambda i: (parsed[i].day, parsed[i].time or "", -i if descending else i))
    seen: Counter = Counter()
    out: dict[str, Fill] = {}
    repeated = []
    for i in order:
        p = parsed[i]
        fill_id = _fill_id(p, seen)
        if fill_id in out:
            repeated.append(Skipped(p.line, _REPEATED, p.day))
            continue
        out[fill_id] = Fill(
            fill_id, p.day, p.time, p.kind, p.symbol, p.name, p.quantity, p.price, p.amount, p.fees,
            p.cash_change, p.balance, p.account, p.contract, contract_kind=p.contract_kind,
        )  # fmt: skip
    return tuple(out.values()), repeated


def _cash(parsed: list[Parsed], skipped: list[Skipped]) -> CashBalance | None:
    """The balance after the last row that states one, skipped rows included (what they
    moved is in the balance even when pixiu does not count them)."""
    stated = [(p.line, p.day, p.time or "", p.balance) for p in parsed if p.balance is not None]
    stated += [(s.line, s.day, "", s.balance) for s in skipped if s.balance is not None and s.day]
    if not stated:
        return None
    days = [day for _, day, _, _ in sorted(stated)]
    descending = days[0] > days[-1]  # listed newest first: the first line is the last moment
    line, day, _, balance = max(stated, key=lambda s: (s[1], -s[0] if descending else s[0]))
    return CashBalance(balance, day, "statement")


def _read_rows(table: list[Row], columns: Columns, skip_bad: bool, today: date, closed: Closed | None):
    parsed: list[Parsed] = []
    skipped: list[Skipped] = []
    bad: list[BadCell] = []
    for row in table:
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
            parsed.append(result)
        elif isinstance(result, Skipped):
            skipped.append(result)
    if bad and not skip_bad:
        more = f"（另有 {len(bad) - 1} 行有误）" if len(bad) > 1 else ""
        raise StatementError(f"{bad[0]}{more}；未导入任何内容（加 --skip-bad 可跳过有误的行）")
    return signed(parsed), skipped, bad


def _unknown(skipped: list[Skipped]) -> dict[str, int]:
    counts = Counter(s.unknown for s in skipped if s.unknown)
    return dict(counts.most_common())


def read_statement(
    path: Path, broker: str = "auto", skip_bad: bool = False, *, today: date, closed: Closed | None = None
) -> Statement:
    """`closed` says why the exchanges were shut on a day (a trade dated then is refused)."""
    if broker not in BROKERS:
        raise StatementError(f"--broker 只能是 {'、'.join(BROKERS)}，而不是 {broker!r}")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StatementError(f"无法读取 {path}：{exc.strerror or type(exc).__name__}") from None
    table = _table(data)
    start, columns = _header(table)
    layout = require_layout(columns, broker) if broker != "auto" else detect_layout(columns)
    parsed, skipped, bad = _read_rows(table[start + 1 :], columns, skip_bad, today, closed)
    cash = _cash(parsed, skipped)  # every row's balance, the payments paired below included
    paired, unanswered = pair_new_shares(parsed)
    fills, repeated = _fills(paired, _descending(parsed))
    accounts = frozenset(f.account for f in fills if f.account)
    known = tuple(sorted((s for s in skipped + unanswered + repeated if not s.unknown), key=lambda s: s.line))
    unpaid = tuple(f for f in fills if f.kind == ALLOTMENT and f.price == 0)
    return Statement(layout, fills, known, tuple(bad), accounts, cash, _unknown(skipped), unpaid)
