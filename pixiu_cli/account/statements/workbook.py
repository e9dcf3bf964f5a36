"""Real spreadsheets: .xlsx through openpyxl (the optional `statements` extra), .xls
through xlrd when it is installed. Cells come back as the text the client wrote."""

from __future__ import annotations

import io
from datetime import date, datetime, time

from pixiu_cli.account.statements.rows import StatementError
from pixiu_cli.account.statements.table import Row, clean

XLSX_MAGIC = b"PK\x03\x04"
XLS_MAGIC = b"\xd0\xcf\x11\xe0"


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime) and value.time() == time(0, 0):
        return value.date().isoformat()  # a date cell: openpyxl reads every date as a datetime
    if isinstance(value, date | time):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return clean(str(value))


def xlsx_rows(data: bytes) -> list[Row]:
    try:
        import openpyxl
    except ImportError:
        raise StatementError(
            "读取 .xlsx 需要 openpyxl：pip install 'pixiu-cli[statements]'，或在券商软件里导出为 CSV/TXT"
        ) from None
    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # a damaged or password-protected workbook: openpyxl raises many kinds
        raise StatementError(f"无法读取这个 .xlsx 文件（{type(exc).__name__}）") from None
    sheet = book.worksheets[0]
    out = []
    for number, values in enumerate(sheet.iter_rows(values_only=True), start=1):
        cells = tuple(_text(v) for v in values)
        if any(cells):
            out.append(Row(number, cells))
    book.close()
    return out


def xls_rows(data: bytes) -> list[Row]:
    try:
        import xlrd
    except ImportError:
        raise StatementError(
            "这是真正的 Excel 97 .xls 文件：请 pip install xlrd，或在券商软件里导出为 CSV/TXT/xlsx"
        ) from None
    try:
        sheet = xlrd.open_workbook(file_contents=data).sheet_by_index(0)
    except Exception as exc:  # xlrd raises its own error types for damaged files
        raise StatementError(f"无法读取这个 .xls 文件（{type(exc).__name__}）") from None
    out = []
    for number in range(sheet.nrows):
        cells = tuple(_text(v) for v in sheet.row_values(number))
        if any(cells):
            out.append(Row(number + 1, cells))
    return out
