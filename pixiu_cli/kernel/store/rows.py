"""Stored values read as the types the domain declares, at the store's boundary.

SQLite keeps any value in any column: a number an old import wrote as text (`１００`, ` 12.5`),
a BLOB in a text column, text that is no number in a REAL column. What leaves the store has
the type its field declares: a `str` field is str (NULL as ""), a `str | None` field str or
None, a `float | None` field a float or None, an `int` field an int, a `bool` field a bool.

Two kinds of field, two answers to a value that is not what it should be:
- the investor's data set (holdings, notes, decisions… read on every turn): a number that is
  no number reads as NaN, which every view shows as 无效值 and no figure is made from, so one
  bad row never fails a turn;
- figures that are computed with (bars, corporate actions, alert thresholds): the row is
  refused with `StoredValueError`, one line naming the table, the row and the column.

The public row mapping of the store: every store module reads its rows with `dict_rows` and
turns them into domain types with the `*_from_row` functions here, so no store imports
another store's private helpers.

The JSON texts every turn stores beside its request (the messages it adds to the history,
the summary of its context block) packed with zlib against a shared dictionary: they are a
few kilobytes each, too short for zlib to find much to reuse within one text, but most of
what they repeat (the block's frame, section titles, JSON keys of the block summary and of a
holdings result) is the same in every turn. The dictionary is a shipped file that never
changes once released; each blob starts with the number of its dictionary, so a later
dictionary is a new file and every row written with an older one still reads."""

from __future__ import annotations

import json
import math
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from functools import cache
from typing import Any, TypeVar

from pixiu_cli.kernel.errors import UserError
from pixiu_cli.kernel.resources import data_dir

T = TypeVar("T")
INVALID = math.nan  # a stored number that is no number


class StoredValueError(UserError):
    """A stored value pixiu cannot compute with; the message names where it is."""


def text(value: Any) -> str:
    """Text as stored: NULL is "", a BLOB is decoded (bad bytes replaced), a number its digits."""
    if type(value) is str:
        return value
    if value is None:
        return ""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", errors="replace")
    return str(value)


def optional_text(value: Any) -> str | None:
    return None if value is None else text(value)


def spelled_number(value: Any) -> float | None:
    """The finite float a stored value spells (a number, or text such as `１００` or ` 12.5`),
    or None when it spells none: NULL, a bool, a BLOB, NaN, ±Infinity, a number too large for
    a float. The one reading of a stored number; `number`, `count` and `exact_number` give
    their fields' answer to None."""
    if value is None or isinstance(value, bool):
        return None
    try:
        result = float(value) if isinstance(value, (int, float)) else float(text(value).strip())
    except (ValueError, OverflowError, TypeError):
        return None  # float() also reads full-width digits (１００)
    return result if math.isfinite(result) else None


def number(value: Any) -> float | None:
    """NULL is None; a finite number (or text spelling one) its float; anything else, ±Infinity
    included, NaN: the investor's value is shown as 无效值 and no figure is made from it."""
    if type(value) is float and math.isfinite(value) or value is None:
        return value
    parsed = spelled_number(value)
    return INVALID if parsed is None else parsed


def count(value: Any) -> int:
    """A whole number; NULL or anything that is not one (or one past MAX_READABLE) is 0."""
    if type(value) is int and -MAX_READABLE <= value <= MAX_READABLE:
        return value
    parsed = spelled_number(value)
    return int(parsed) if parsed is not None and parsed.is_integer() and readable(parsed) else 0


def optional_count(value: Any) -> int | None:
    """A whole number, or None for NULL (an id that may be missing)."""
    return None if value is None else count(value)


def flag(value: Any) -> bool:
    return count(value) != 0


def exact_number(value: Any, where: Callable[[], str]) -> float | None:
    """NULL is None; a finite number within MAX_READABLE (or text spelling one) its float;
    anything else is refused."""
    if type(value) is float and readable(value) or value is None:
        return value
    parsed = spelled_number(value)
    if parsed is None or not readable(parsed):
        shown = repr(value if not isinstance(value, (bytes, bytearray, memoryview)) else bytes(value))
        raise StoredValueError(
            f"数据库中 {where()} 的值 {shown[:40]} 不是有效数字：请重新导入或同步这部分数据（pixiu data import / sync）"
        )
    return parsed


def required_number(value: Any, where: Callable[[], str]) -> float:
    """exact_number, and NULL is refused too."""
    result = exact_number(value, where)
    if result is None:
        raise StoredValueError(f"数据库中 {where()} 缺少数值：请重新导入或同步这部分数据（pixiu data import / sync）")
    return result


MAX_READABLE = 1e15


def readable(value: float, bound: float = MAX_READABLE) -> bool:
    """A stored float finite and within ±bound."""
    return math.isfinite(value) and -bound <= value <= bound


@dataclass(frozen=True)
class SkippedRow:
    """A stored row of the ledger no figure can be made from (a value an older version or a
    damaged file left): a read leaves it out of the account and says so."""

    table: str  # account_fills | account_cash | corporate_actions
    row: str  # its id, or its stock and day
    column: str
    value: str  # as stored, shortened
    problem: str  # "invalid": no number; "range": past any account's bounds


def unreadable(table: str, row: str, values: Mapping[str, Any], bounds: Mapping[str, float]) -> SkippedRow | None:
    """The first of `bounds`' columns whose stored value is no number, or one past its bound
    (NULL is left to the reader); None when the row can be read."""
    for column, bound in bounds.items():
        value = values[column]
        if value is None:
            continue
        parsed = spelled_number(value)
        if parsed is None:
            shown = repr(value if not isinstance(value, (bytes, bytearray, memoryview)) else bytes(value))
            return SkippedRow(table, row, column, shown[:40], "invalid")
        if not readable(parsed, bound):
            return SkippedRow(table, row, column, f"{parsed:.6g}", "range")
    return None


def skip_or_refuse(row: SkippedRow, skipped: list[SkippedRow] | None) -> None:
    """A read (`skipped` a list) leaves the row out and notes it; a write (None) refuses: it
    must not build on a row it cannot read."""
    if skipped is not None:
        skipped.append(row)
        return
    why = "不是有效数字" if row.problem == "invalid" else "超出任何账户可能的范围"
    raise StoredValueError(
        f"数据库中 {row.table} 表 {row.row} 行的 {row.column} 的值 {row.value} {why}："
        f"请先{_MENDS.get(row.table, '重新导入这部分数据')}，再写入"
    )


# How each ledger table's row is mended (the note of a read says the same: views/account.py).
_MENDS = {
    "account_fills": "用 pixiu forget 撤销这笔交易或重新导入对账单",
    "account_cash": "用 pixiu cash set 重新设置现金",
    "corporate_actions": "用 pixiu data sync 重新同步这只股票",
}


_READERS: dict[str, Callable[[Any], Any]] = {
    "str": text,
    "str | None": optional_text,
    "float | None": number,
    "int": count,
    "int | None": optional_count,
    "bool": flag,
}


@cache
def _plan(cls: type, exact: bool) -> tuple[tuple[str, Callable[[Any], Any] | None, Callable | None], ...]:
    """Per field: (name, plain reader, or the checked reader that refuses)."""
    plan = []
    for f in fields(cls):
        kind = str(f.type)
        if kind == "float" or (exact and kind == "float | None"):
            plan.append((f.name, None, required_number if kind == "float" else exact_number))
        else:
            plan.append((f.name, _READERS.get(kind), None))
    return tuple(plan)


def _row_name(table: str, row: Mapping[str, Any]) -> str:
    key = next((row[k] for k in ("id", "symbol", "key") if row.get(k) is not None), None)
    return table if key is None else f"{table} 表 {text(key)} 行"


def record(cls: type[T], row: Mapping[str, Any], table: str, *, exact: bool = False, **given: Any) -> T:
    """`cls` built from a row of `table`, each field read as its declared type. A `float`
    field must hold a finite number, and with `exact` so must a `float | None` one that is
    not NULL (refused with StoredValueError otherwise); `given` supplies the fields no plain
    reader covers (JSON columns, defaults of missing columns)."""
    values = []
    for name, read, check in _plan(cls, exact):
        if name in given:
            values.append(given[name])
        elif read is not None:
            values.append(read(row[name]))
        elif check is not None:
            values.append(check(row[name], lambda name=name: f"{_row_name(table, row)}的 {name}"))
        else:
            raise TypeError(f"{cls.__name__}.{name}: no reader for its type; pass it")
    return cls(*values)


def dict_rows(db, sql: str, params=()) -> list[dict]:
    """Rows of a SELECT as dicts. Straight on the connection: sqlite-utils' query() wraps
    each statement in a SAVEPOINT and a RELEASE, two more statements per read."""
    cursor = db.conn.execute(sql, list(params))
    keys = [d[0] for d in cursor.description]
    return [dict(zip(keys, row)) for row in cursor]


def json_column(raw, default):
    """A stored JSON column, or `default` when it holds anything else (the database can
    hold any value; reading one must not fail a turn)."""
    try:
        value = json.loads(raw) if isinstance(raw, (str, bytes)) and raw else default
    except (ValueError, RecursionError):
        return default
    return value if isinstance(value, type(default)) else default


VERSION = 1


@cache
def dictionary(version: int = VERSION) -> bytes:
    return (data_dir() / "store" / f"dictionary-{version}.txt").read_bytes()


def pack_text(text: str) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, 15, 9, zlib.Z_DEFAULT_STRATEGY, dictionary())
    return bytes([VERSION]) + packer.compress(text.encode("utf-8")) + packer.flush()


def unpack_text(blob: bytes) -> str:
    unpacker = zlib.decompressobj(15, dictionary(blob[0]))
    return (unpacker.decompress(blob[1:]) + unpacker.flush()).decode("utf-8")


def text_of(packed: bytes | None, plain: str | None) -> str | None:
    """A column pair as read: the packed blob, else the plain text of a row written before."""
    return unpack_text(packed) if packed is not None else plain
