"""Daily bars and corporate actions from CSV files (the built-in, offline source).

Shapes recognised:
- generic CSV/TSV with a header row: date|datetime|日期|交易日期|trade_date, open|开盘, high|最高,
  low|最低, close|收盘, volume|vol|成交量, amount|成交额 (optional), tradestatus, isST;
- 通达信 text export: a title line ("000001 平安银行 日线 不复权"), a header row of Chinese
  names, tab- or comma-separated rows with YYYY/MM/DD dates and a "数据来源:通达信" footer; GBK;
- tushare `daily` dumps (ts_code, trade_date, …, vol, amount): vol in 手, amount in 千元.

Volume is stored in shares. A header naming 手 (成交量(手)) or the tushare shape means lots of
100 shares; anything else is taken as shares (通达信 exports and akshare/baostock dumps are in
shares). `volume_unit` overrides the guess."""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass
from datetime import date
from itertools import repeat
from pathlib import Path

from pixiu_cli.account.statements.decode import decode
from pixiu_cli.account.statements.rows import StatementError
from pixiu_cli.kernel.clock import system_clock
from pixiu_cli.kernel.errors import UserError
from pixiu_cli.market.bars import Bar, BarSeries, CorporateAction
from pixiu_cli.market.gate import off_session, session_problem
from pixiu_cli.market.plausible import (
    MAX_SHARES,
    action_problem,
    bar_problem,
    calendar_date,
    day_problem,
    market_date_problem,
    price_problem,
)

_ALIASES = {
    "date": ("date", "datetime", "日期", "交易日期", "trade_date", "时间"),
    "open": ("open", "开盘", "开盘价"),
    "high": ("high", "最高", "最高价"),
    "low": ("low", "最低", "最低价"),
    "close": ("close", "收盘", "收盘价"),
    "volume": ("volume", "vol", "成交量"),
    "amount": ("amount", "成交额", "成交金额"),
    "trade_status": ("tradestatus", "trade_status", "交易状态"),
    "is_st": ("isst", "is_st"),
}
_REQUIRED = ("date", "open", "high", "low", "close", "volume")
_DATE = re.compile(r"(\d{4})[-/.]?(\d{1,2})[-/.]?(\d{1,2})(?:[ T].*)?")
_UNIT_SUFFIX = re.compile(r"[（(][^）)]*[）)]")


class CsvImportError(UserError):
    """The file cannot be imported; one line for the user, nothing was written."""


@dataclass(frozen=True)
class ParsedBars:
    series: BarSeries  # oldest first, in shares; the file names no symbol, so it is ""
    shape: str  # generic | tdx | tushare
    volume_unit: str  # shares | lots (as the file had it; bars are in shares)
    columns: dict[str, str]  # our field → the file's header
    title: str = ""  # the line above the header (通达信: "000001 平安银行 日线 不复权")

    @property
    def bars(self) -> list[Bar]:
        return self.series.bars()


def read_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise CsvImportError(f"找不到文件 {path}") from None
    except OSError as exc:
        raise CsvImportError(f"无法读取 {path}：{exc.strerror}") from None
    try:
        return decode(raw)  # 通达信 and most broker exports are GBK; its "Unicode" export UTF-16
    except StatementError:
        raise CsvImportError(f"{path.name} 不是 UTF-8、UTF-16 或 GBK 文本") from None


def _key(header: str) -> str:
    return _UNIT_SUFFIX.sub("", header).strip().lower().replace(" ", "")


def _map_header(cells: list[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for index, cell in enumerate(cells):
        key = _key(cell)
        for field, names in _ALIASES.items():
            if key in names and field not in found:
                found[field] = index
    return found


def _delimiter(line: str) -> str:
    return "\t" if line.count("\t") > line.count(",") else ","


def _split(line: str) -> list[str]:
    return [c.strip() for c in next(csv.reader(io.StringIO(line), delimiter=_delimiter(line)))]


def _date(text: str) -> str | None:
    """The row's date as YYYY-MM-DD, or None when it is not a day the calendar has."""
    if len(text) == 10 and text[4] == "-" == text[7]:
        return text if calendar_date(text) else None  # the common spelling, without the regex
    m = _DATE.fullmatch(text.strip())
    if not m:
        return None
    y, mo, d = (int(g) for g in m.groups())
    spelled = f"{y:04d}-{mo:02d}-{d:02d}"
    return spelled if calendar_date(spelled) else None


def _day_text(text: str, line_no: int, where: str = "") -> str:
    day = _date(text)
    if day is None:
        raise CsvImportError(f"{where}第 {line_no} 行：日期「{text[:20]}」无法识别（应为有效的 YYYY-MM-DD 日期）")
    return day


def _session(text: str, line_no: int, today: date) -> str:
    """A bar's date: readable, then through the gate (up to today, a trading day)."""
    day = _day_text(text, line_no)
    if problem := session_problem(day, today):
        raise CsvImportError(f"第 {line_no} 行：{problem.text()}")
    return day


def _ex_date(text: str, line_no: int, today: date) -> str:
    day = _day_text(text, line_no, "除权除息文件")
    if problem := market_date_problem(date.fromisoformat(day), today):
        raise CsvImportError(f"除权除息文件第 {line_no} 行：{problem}")
    return day


def _number(text: str, what: str, line_no: int, *, allow_empty: bool = False) -> float | None:
    try:  # the common case first: a plain number
        value = float(text)
        if value >= 0 and value != math.inf:  # NaN fails the comparison
            return value
    except ValueError:
        pass
    text = text.replace(",", "").strip()
    if not text and allow_empty:
        return None
    try:
        value = float(text)
    except ValueError:
        raise CsvImportError(f"第 {line_no} 行：{what}「{text[:20]}」不是数字") from None
    if not math.isfinite(value) or value < 0:
        raise CsvImportError(f"第 {line_no} 行：{what} {text[:20]} 不是有效数值")
    return value


def _find_header(lines: list[str]) -> tuple[int, dict[str, int], list[str]]:
    for index, line in enumerate(lines[:5]):  # 通达信 puts a title line above the header
        cells = _split(line) if line.strip() else []
        mapping = _map_header(cells)
        if all(f in mapping for f in _REQUIRED):
            return index, mapping, cells
        if mapping.get("date") is not None and len(mapping) >= 3:
            missing = "、".join(f for f in _REQUIRED if f not in mapping)
            raise CsvImportError(f"第 {index + 1} 行表头缺少列：{missing}（支持的列名见 docs/data-formats.md）")
    raise CsvImportError("没有找到表头：需要 date/日期、open/开盘、high/最高、low/最低、close/收盘、volume/成交量 列")


def _volume_unit(cells: list[str], mapping: dict[str, int], shape: str, requested: str) -> str:
    if requested != "auto":
        return requested
    if shape == "tushare" or "手" in cells[mapping["volume"]]:
        return "lots"
    return "shares"


def _row(cells: list[str], m: dict[str, int], line_no: int, lots: bool, tushare: bool, today: date) -> Bar:
    day = _session(cells[m["date"]], line_no, today)
    o, h, lo, c = (_number(cells[m[f]], name, line_no) for f, name in _PRICE_NAMES)
    volume = _number(cells[m["volume"]], "成交量", line_no) * (100 if lots else 1)
    amount = _number(cells[m["amount"]], "成交额", line_no, allow_empty=True) if "amount" in m else None
    if amount is not None and tushare:
        amount *= 1000  # tushare's amount is in 千元
    status = cells[m["trade_status"]].strip() if "trade_status" in m else ""
    traded = 0 if status == "0" or volume == 0 else 1
    is_st = cells[m["is_st"]].strip() == "1" if "is_st" in m else False
    bar = Bar(day, o, h, lo, c, volume, amount, traded, is_st)
    if problem := bar_problem(bar):  # the gate every source's bars pass
        raise CsvImportError(f"第 {line_no} 行（{day}）：{problem.text()}")
    return bar


def parse_bars(text: str, volume_unit: str = "auto", *, today: date | None = None) -> ParsedBars:
    """Bars oldest first; any bad row refuses the whole file (naming the line). A bar after
    `today` (the app's clock; None: the machine's day) is in the future."""
    today = today or system_clock().date()
    lines = text.splitlines()
    start, mapping, header = _find_header(lines)
    shape = "tdx" if start > 0 else "tushare" if any(_key(c) == "ts_code" for c in header) else "generic"
    unit = _volume_unit(header, mapping, shape, volume_unit)
    delimiter = _delimiter(lines[start])
    fast = None if shape == "tdx" else _parse_columns(lines[start + 1 :], delimiter, mapping, unit, shape, today)
    if fast is None:
        rows = list(csv.reader(lines[start + 1 :], delimiter=delimiter))
        bars = _parse_rows(rows, start, mapping, max(mapping.values()), unit, shape, today)
        if not bars:
            raise CsvImportError("文件里没有数据行")
        fast = bar_columns(sorted(bars.values(), key=lambda b: b.date))
    columns = {field: header[index] for field, index in mapping.items()}
    title = lines[start - 1].strip() if start else ""
    return ParsedBars(fast, shape, unit, columns, title)


def bar_columns(bars: list[Bar]) -> BarSeries:
    """Bars as the columns the store writes (no symbol: the caller knows it)."""
    fields = ("date", "open", "high", "low", "close", "volume", "amount", "trade_status", "is_st")
    return BarSeries("", "none", *(tuple(getattr(b, f) for b in bars) for f in fields))


_PRICES = ("open", "high", "low", "close", "volume")
_PRICE_NAMES = (("open", "开盘价"), ("high", "最高价"), ("low", "最低价"), ("close", "收盘价"))


def _cells(body: list[str], delimiter: str, m: dict[str, int]) -> tuple[list[str], int] | None:
    """Every cell of a plain body (no quotes, every row as wide as the first), row after
    row, and that width; None for anything the csv module must read."""
    while body and not body[-1].strip():  # the blank lines an editor leaves at the end
        body = body[:-1]
    if not body:
        return None
    width = body[0].count(delimiter) + 1
    joined = delimiter.join(body)
    if width <= max(m.values()) or '"' in joined or set(map(str.count, body, repeat(delimiter))) != {width - 1}:
        return None
    return joined.split(delimiter), width


def _parse_columns(
    body: list[str], delimiter: str, m: dict[str, int], unit: str, shape: str, today: date
) -> BarSeries | None:
    """The common file, parsed by column with numpy: plain numbers, ISO dates, consistent
    prices, no blank or short row, no repeated date. None for anything else, which the
    row-by-row parser then reads, naming the line at fault."""
    import numpy as np

    split = _cells(body, delimiter, m)
    if split is None:
        return None
    cells, width = split
    column = {field: cells[i::width] for field, i in m.items()}
    try:  # a list of str to float is float() per cell, in C: what the row parser accepts
        o, h, lo, c, v = (np.array(column[f], dtype=float) for f in _PRICES)
        amount = np.array(column["amount"], dtype=float) if "amount" in m else None
        days = _market_days(column["date"], today)
    except ValueError:  # a comma in a number, a blank amount, text, a bad date: the careful path
        return None
    if not _sane(o, h, lo, c, v * 100 if unit == "lots" else v, amount):
        return None
    order = None if (np.diff(days) > 0).all() else np.argsort(days, kind="stable")
    if order is not None and not (np.diff(days[order]) > 0).all():
        return None  # a repeated date: the row parser names its line
    traded = v != 0
    if "trade_status" in m:
        traded &= np.char.strip(np.array(column["trade_status"])) != "0"
    st = np.char.strip(np.array(column["is_st"])) == "1" if "is_st" in m else np.zeros(len(days), dtype=bool)
    v = v * 100 if unit == "lots" else v
    amount = amount * 1000 if amount is not None and shape == "tushare" else amount  # 千元
    floats = [x if order is None else x[order] for x in (o, h, lo, c, v)]
    dates = column["date"] if order is None else [column["date"][i] for i in order.tolist()]
    amounts = (None,) * len(dates) if amount is None else tuple((amount if order is None else amount[order]).tolist())
    flags = [x if order is None else x[order] for x in (traded.astype(int), st)]
    return BarSeries(
        "", "none", tuple(dates), *(tuple(x.tolist()) for x in floats), amounts, *(tuple(x.tolist()) for x in flags)
    )


def _market_days(dates: list[str], today: date):
    """The column as numpy days; ValueError unless every one is an ISO day the calendar has
    and the market had reached (ISO days sort as strings: the first and last bound them)."""
    import numpy as np

    spelled = np.array(dates)
    if spelled.dtype != np.dtype("<U10"):
        raise ValueError("not YYYY-MM-DD")
    codes = spelled.view(np.uint32).reshape(len(dates), 10)  # one code point per character
    digits = codes[:, [0, 1, 2, 3, 5, 6, 8, 9]]
    if not ((digits >= ord("0")) & (digits <= ord("9"))).all() or not (codes[:, [4, 7]] == ord("-")).all():
        raise ValueError("not YYYY-MM-DD")
    days = spelled.astype("datetime64[D]")  # refuses 02-30 and 13-01
    first, last = (date.fromisoformat(str(x)) if calendar_date(str(x)) else None for x in (days.min(), days.max()))
    if first is None or last is None or day_problem(first, today) or day_problem(last, today):
        raise ValueError("outside the market's days")
    numbers = days.astype("int64")
    if off_session(numbers).any():
        raise ValueError("a day the exchanges were closed")
    return numbers


def _sane(o, h, lo, c, v, amount) -> bool:
    """What the gate's bar_problem checks of every row, over whole columns (v in shares)."""
    import numpy as np

    values = np.stack([o, h, lo, c, v] + ([amount] if amount is not None else []))
    if not (np.isfinite(values).all() and (values >= 0).all()):
        return False
    if not ((lo <= o) & (o <= h) & (lo <= c) & (c <= h) & (c > 0)).all():
        return False
    return price_problem(float(h.max())) is None and float(v.max()) <= MAX_SHARES


def _parse_rows(
    rows: list[list[str]], start: int, mapping: dict[str, int], width: int, unit: str, shape: str, today: date
) -> dict[str, Bar]:
    bars: dict[str, Bar] = {}
    for offset, cells in enumerate(rows, start=start + 2):
        if not cells or (not cells[0].strip() and not "".join(cells).strip()) or cells[0].startswith("数据来源"):
            continue
        if shape == "tdx":  # 通达信 pads its columns with spaces
            cells = [c.strip() for c in cells]
        if len(cells) <= width:
            raise CsvImportError(f"第 {offset} 行：只有 {len(cells)} 列，少于表头")
        bar = _row(cells, mapping, offset, unit == "lots", shape == "tushare", today)
        if bar.date in bars:
            raise CsvImportError(f"第 {offset} 行：日期 {bar.date} 重复")
        bars[bar.date] = bar
    return bars


_TITLE_ADJUST = {"前复权": "qfq", "后复权": "hfq", "不复权": "none"}


def check_title(parsed: ParsedBars, symbol: str, adjusted: str) -> None:
    """A 通达信 title names the stock and how the prices were adjusted: refuse a file whose
    title contradicts --symbol or --adjusted rather than store wrong prices as real ones."""
    code = re.search(r"\b(\d{6})\b", parsed.title)
    if code and code.group(1) != symbol[-6:]:  # an index's key ends in its six digits (sh000300)
        raise CsvImportError(f"文件标题是 {code.group(1)}，与 --symbol {symbol} 不符")
    for word, mode in _TITLE_ADJUST.items():
        if word in parsed.title and mode != adjusted:
            raise CsvImportError(
                f"文件标题写明「{word}」，请用 --adjusted {mode}" + ("（并提供 --actions）" if mode != "none" else "")
            )


def parse_actions(
    text: str, symbol: str, *, source: str = "import", at: str | None = None, today: date | None = None
) -> list[CorporateAction]:
    """`ex_date,cash_per_share,shares_per_share` rows (10派12转增5 → 2016-05-06,1.2,0.5); an
    ex-date after `today` (None: the machine's day) is in the future."""
    today = today or system_clock().date()
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or [c.strip().lower() for c in rows[0]][:3] != ["ex_date", "cash_per_share", "shares_per_share"]:
        raise CsvImportError("除权除息文件的表头应为 ex_date,cash_per_share,shares_per_share")
    actions = []
    for line_no, cells in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in cells):
            continue
        if len(cells) < 3:
            raise CsvImportError(f"除权除息文件第 {line_no} 行：需要 3 列")
        ex_date = _ex_date(cells[0], line_no, today)
        cash = _number(cells[1] or "0", "每股派现", line_no)
        shares = _number(cells[2] or "0", "每股送转", line_no)
        if cash == 0 and shares == 0:
            raise CsvImportError(f"除权除息文件第 {line_no} 行：派现和送转都为 0")
        if problem := action_problem(cash, shares, None):
            raise CsvImportError(f"除权除息文件第 {line_no} 行（{ex_date}）：{problem}")
        actions.append(CorporateAction(symbol, ex_date, cash, shares, None, source, "cash_shares", at))
    return actions
