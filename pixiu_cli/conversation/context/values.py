"""Stored values as the context block shows them, whatever the database holds.

SQLite keeps any value in any column: NULL, NaN, ±Infinity, a 400-digit integer, a string
in a numeric column, a BLOB in a text column, a date that is not a date. The block must
never fail on one of them, and must not present one as a plausible number: a value that
is not a finite number shows as 无效值, a missing one as —, an unreadable date as 日期未知."""

from __future__ import annotations

import math
from datetime import date
from functools import lru_cache

INVALID = "无效值"
MISSING = "—"
UNKNOWN_DAY = "日期未知"
_BIG = 1e15  # past this, digits are noise: shown in scientific notation


def text(value) -> str:
    """Any stored value as text: NULL is empty, a BLOB is decoded (bad bytes replaced)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", errors="replace")
    return str(value)


def number(value) -> float | None:
    """A finite float, or None for NULL, NaN, ±Infinity, text that is not a number, a
    BLOB, or an integer too large for a float."""
    if value is None or isinstance(value, bool):
        return None
    try:
        result = float(value) if isinstance(value, (int, float)) else float(text(value).strip())
    except (ValueError, OverflowError, TypeError):
        return None
    return result if math.isfinite(result) else None


def _shown(value, digits: int, integer_plain: bool, grouping: str = ",") -> str:
    if value is None:
        return MISSING
    n = number(value)
    if n is None:
        return INVALID
    if abs(n) >= _BIG:
        return f"{n:.3e}"
    if integer_plain and n.is_integer():
        return f"{n:{grouping}.0f}"
    return f"{n:{grouping}.{digits}f}"


def show_number(value) -> str:
    """Shares, quantities: 1,000 or 12.50."""
    return _shown(value, 2, True)


def show_money(value) -> str:
    """Amounts of money: always to the 分, grouped (15,620.00), as a broker's statement
    prints them, so a round amount reads the same as any other."""
    return _shown(value, 2, False)


def show_price(value) -> str:
    """Prices and costs: two decimals, no grouping (1465.00)."""
    return _shown(value, 2, False, "")


def show_signed(value) -> str:
    """Scores: +0.42."""
    n = number(value)
    if n is None or abs(n) >= _BIG:
        return _shown(value, 2, False, "")
    return f"{n:+.2f}"


def show_pct(value) -> str:
    """A ratio as a percentage: 0.112 → 11.2%."""
    n = number(value)
    if n is None or abs(n) * 100 >= _BIG:
        return _shown(value, 1, False, "")
    return f"{n * 100:.1f}%"


@lru_cache(maxsize=16384)
def day(value) -> date | None:
    """The date a stored timestamp starts with (YYYY-MM-DD…), or None. Remembered: the
    same holdings' and profiles' dates are read on every turn."""
    raw = text(value).strip()[:10]
    try:
        return date.fromisoformat(raw) if len(raw) == 10 else None
    except ValueError:
        return None


def cash_said(amount: str, stated_as_of: str, stated_amount: str, rolled: int, missing: int) -> str:
    """The cash as every surface says it (`pixiu holdings`, the context block, the brief): the
    figure, the stated balance and its day it starts from, and the later flows counted or not."""
    counted = f"，其后 {rolled} 笔流水已计入" if rolled else ""
    left_out = f"；其后 {missing} 笔成交的资金变动未知，未计入" if missing else ""
    return f"现金 {amount}（{stated_as_of} 余额 {stated_amount}{counted}{left_out}）"


def sessions_said(verb: str, count: int, at_least: bool = False) -> str:
    """`已过期 N 个交易日`, or `已过期至少 N 个交易日` when the count stopped at the trading
    calendar's last day: past it nobody knows which weekdays were sessions."""
    return f"{verb}{'至少' if at_least else ''} {count} 个交易日"


# A stored ledger row left out of the account (services/account.py account_record
# "skipped_rows"): how each column is named, and how each table's row is mended.
_SKIPPED_COLUMNS = {
    ("account_fills", "quantity"): "数量",
    ("account_fills", "price"): "成交价",
    ("account_fills", "amount"): "金额",
    ("account_fills", "fees"): "费用",
    ("account_fills", "cash_change"): "资金变动",
    ("account_fills", "balance"): "资金余额",
    ("account_cash", "amount"): "现金余额",
    ("corporate_actions", "cash_per_share"): "每股派现",
    ("corporate_actions", "shares_per_share"): "每股送转",
    ("corporate_actions", "ratio"): "除权比例",
}
_MENDS = {
    "account_fills": "pixiu forget 撤销手工交易或重新导入对账单",
    "account_cash": "pixiu cash set 重新设置现金",
    "corporate_actions": "pixiu data sync 重新同步该股",
}
_SKIPPED_SHOWN = 3


def _skipped_row(row) -> str:
    table, key = row["table"], row["row"]
    where = f"{table} 第 {key} 行" if key.isdigit() else f"{table} {key}"
    name = _SKIPPED_COLUMNS.get((table, row["column"]), row["column"])
    why = "超出合理范围" if row["problem"] == "range" else "不是有效数字"
    return f"{where}：{name} {row['value']} {why}"


def skipped_said(rows) -> str:
    """The note every surface of the account gives when stored rows were left out of it (""
    when none): how many, which (the first few), and how to mend them."""
    if not rows:
        return ""
    named = "；".join(_skipped_row(r) for r in rows[:_SKIPPED_SHOWN])
    more = f" 等 {len(rows)} 条" if len(rows) > _SKIPPED_SHOWN else ""
    mends = " / ".join(dict.fromkeys(_MENDS[r["table"]] for r in rows if r["table"] in _MENDS))
    return (
        f"已跳过数据库中无法读取的 {len(rows)} 条记录（{named}{more}）；账户数字不含{'它' if len(rows) == 1 else '它们'}。"
        f"修正：{mends}。"
    )
