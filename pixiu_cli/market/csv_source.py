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
from datetime import date, datetime
from pathlib import Path

from pixiu_cli.domain.market import Bar, CorporateAction
from pixiu_cli.domain.plausible import action_problem, calendar_date, market_date_problem, price_problem
from pixiu_cli.errors import UserError
from pixiu_cli.market.trading_days import SHANGHAI

VOLUME_UNITS = ("auto", "shares", "lots")

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
    bars: list[Bar]
    shape: str  # generic | tdx | tushare
    volume_unit: str  # shares | lots (as the file had it; bars are in shares)
    columns: dict[str, str]  # our field → the file's header
    title: str = ""  # the line above the header (通达信: "000001 平安银行 日线 不复权")


def read_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise CsvImportError(f"找不到文件 {path}") from None
    except OSError as exc:
        raise CsvImportError(f"无法读取 {path}：{exc.strerror}") from None
    for encoding in ("utf-8-sig", "gb18030"):  # 通达信 and most broker exports are GBK
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise CsvImportError(f"{path.name} 不是 UTF-8 或 GBK 文本")


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


def _market_day(text: str, line_no: int, where: str = "") -> str:
    day = _date(text)
    if day is None:
        raise CsvImportError(f"{where}第 {line_no} 行：日期「{text[:20]}」无法识别（应为有效的 YYYY-MM-DD 日期）")
    problem = market_date_problem(date.fromisoformat(day), datetime.now(SHANGHAI).date())
    if problem:
        raise CsvImportError(f"{where}第 {line_no} 行：{problem}")
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
            raise CsvImportError(f"第 {index + 1} 行表头缺少列：{missing}（支持的列名见 README）")
    raise CsvImportError("没有找到表头：需要 date/日期、open/开盘、high/最高、low/最低、close/收盘、volume/成交量 列")


def _volume_unit(cells: list[str], mapping: dict[str, int], shape: str, requested: str) -> str:
    if requested != "auto":
        return requested
    if shape == "tushare" or "手" in cells[mapping["volume"]]:
        return "lots"
    return "shares"


def _row(cells: list[str], m: dict[str, int], line_no: int, lots: bool, tushare: bool) -> Bar:
    date = _market_day(cells[m["date"]], line_no)
    o = _number(cells[m["open"]], "开盘价", line_no)
    h = _number(cells[m["high"]], "最高价", line_no)
    lo = _number(cells[m["low"]], "最低价", line_no)
    c = _number(cells[m["close"]], "收盘价", line_no)
    if not (lo <= o <= h and lo <= c <= h) or c <= 0:
        raise CsvImportError(f"第 {line_no} 行（{date}）：价格不自洽（最低 {lo} 最高 {h} 开 {o} 收 {c}）")
    if problem := price_problem(h):
        raise CsvImportError(f"第 {line_no} 行（{date}）：最高价 {problem}")
    volume = _number(cells[m["volume"]], "成交量", line_no) * (100 if lots else 1)
    amount = _number(cells[m["amount"]], "成交额", line_no, allow_empty=True) if "amount" in m else None
    if amount is not None and tushare:
        amount *= 1000  # tushare's amount is in 千元
    status = cells[m["trade_status"]].strip() if "trade_status" in m else ""
    traded = 0 if status == "0" or volume == 0 else 1
    is_st = cells[m["is_st"]].strip() == "1" if "is_st" in m else False
    return Bar(date, o, h, lo, c, volume, amount, traded, is_st)


def parse_bars(text: str, volume_unit: str = "auto") -> ParsedBars:
    """Bars oldest first; any bad row refuses the whole file (naming the line)."""
    lines = text.splitlines()
    start, mapping, header = _find_header(lines)
    shape = "tdx" if start > 0 else "tushare" if any(_key(c) == "ts_code" for c in header) else "generic"
    unit = _volume_unit(header, mapping, shape, volume_unit)
    width = max(mapping.values())
    rows = list(csv.reader(lines[start + 1 :], delimiter=_delimiter(lines[start])))
    fast = _parse_columns(rows, mapping, unit == "lots", shape == "tushare") if shape != "tdx" else None
    bars = {b.date: b for b in fast} if fast is not None else _parse_rows(rows, start, mapping, width, unit, shape)
    if not bars:
        raise CsvImportError("文件里没有数据行")
    columns = {field: header[index] for field, index in mapping.items()}
    title = lines[start - 1].strip() if start else ""
    ordered = fast if fast is not None and _ascending(fast) else sorted(bars.values(), key=lambda b: b.date)
    return ParsedBars(ordered, shape, unit, columns, title)


def _ascending(bars: list[Bar]) -> bool:
    return all(a.date < b.date for a, b in zip(bars, bars[1:]))


_ISO_DAY = re.compile(r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])")


def _parse_columns(rows: list[list[str]], m: dict[str, int], lots: bool, tushare: bool) -> list[Bar] | None:
    """The common file, parsed by column with numpy: plain numbers, ISO dates, consistent
    prices, no blank or short row, no repeated date. None for anything else, which the
    row-by-row parser then reads, naming the line at fault."""
    import numpy as np

    width = max(m.values())
    if not rows or any(len(r) <= width for r in rows):
        return None
    column = {field: [r[i] for r in rows] for field, i in m.items()}
    try:
        # float() per cell is what the row parser accepts, and faster than numpy's own
        # string conversion; the checks below are numpy's
        o, h, lo, c, v = (np.array(list(map(float, column[f]))) for f in ("open", "high", "low", "close", "volume"))
        amount = np.array(list(map(float, column["amount"]))) if "amount" in m else None
    except ValueError:  # a comma in a number, a blank amount, text: the careful path
        return None
    prices = np.stack([o, h, lo, c, v] + ([amount] if amount is not None else []))
    if not (np.isfinite(prices).all() and (prices >= 0).all()):
        return None
    if not ((lo <= o) & (o <= h) & (lo <= c) & (c <= h) & (c > 0)).all():
        return None
    if price_problem(float(h.max())):
        return None
    dates = column["date"]
    if not all(map(_ISO_DAY.fullmatch, dates)) or len(set(dates)) != len(dates) or not all(map(calendar_date, dates)):
        return None
    today = datetime.now(SHANGHAI).date()  # ISO days sort as strings: the first and last bound them all
    if market_date_problem(date.fromisoformat(min(dates)), today) or market_date_problem(
        date.fromisoformat(max(dates)), today
    ):
        return None
    v = v * (100 if lots else 1)
    amounts = [None] * len(rows) if amount is None else (amount * (1000 if tushare else 1)).tolist()
    status = column.get("trade_status")
    traded = v != 0
    if status:
        traded &= np.array([x.strip() != "0" for x in status])
    st = [x.strip() == "1" for x in column["is_st"]] if "is_st" in m else [False] * len(rows)
    floats = (x.tolist() for x in (o, h, lo, c, v))
    return list(map(Bar, dates, *floats, amounts, traded.astype(int).tolist(), st))


def _parse_rows(
    rows: list[list[str]], start: int, mapping: dict[str, int], width: int, unit: str, shape: str
) -> dict[str, Bar]:
    bars: dict[str, Bar] = {}
    for offset, cells in enumerate(rows, start=start + 2):
        if not cells or (not cells[0].strip() and not "".join(cells).strip()) or cells[0].startswith("数据来源"):
            continue
        if shape == "tdx":  # 通达信 pads its columns with spaces
            cells = [c.strip() for c in cells]
        if len(cells) <= width:
            raise CsvImportError(f"第 {offset} 行：只有 {len(cells)} 列，少于表头")
        bar = _row(cells, mapping, offset, unit == "lots", shape == "tushare")
        if bar.date in bars:
            raise CsvImportError(f"第 {offset} 行：日期 {bar.date} 重复")
        bars[bar.date] = bar
    return bars


_TITLE_ADJUST = {"前复权": "qfq", "后复权": "hfq", "不复权": "none"}


def check_title(parsed: ParsedBars, symbol: str, adjusted: str) -> None:
    """A 通达信 title names the stock and how the prices were adjusted: refuse a file whose
    title contradicts --symbol or --adjusted rather than store wrong prices as real ones."""
    code = re.search(r"\b(\d{6})\b", parsed.title)
    if code and code.group(1) != symbol:
        raise CsvImportError(f"文件标题是 {code.group(1)}，与 --symbol {symbol} 不符")
    for word, mode in _TITLE_ADJUST.items():
        if word in parsed.title and mode != adjusted:
            raise CsvImportError(
                f"文件标题写明「{word}」，请用 --adjusted {mode}" + ("（并提供 --actions）" if mode != "none" else "")
            )


def parse_actions(text: str, symbol: str, *, source: str = "import", at: str | None = None) -> list[CorporateAction]:
    """`ex_date,cash_per_share,shares_per_share` rows (10派12转增5 → 2016-05-06,1.2,0.5)."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or [c.strip().lower() for c in rows[0]][:3] != ["ex_date", "cash_per_share", "shares_per_share"]:
        raise CsvImportError("除权除息文件的表头应为 ex_date,cash_per_share,shares_per_share")
    actions = []
    for line_no, cells in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in cells):
            continue
        if len(cells) < 3:
            raise CsvImportError(f"除权除息文件第 {line_no} 行：需要 3 列")
        ex_date = _market_day(cells[0], line_no, "除权除息文件")
        cash = _number(cells[1] or "0", "每股派现", line_no)
        shares = _number(cells[2] or "0", "每股送转", line_no)
        if cash == 0 and shares == 0:
            raise CsvImportError(f"除权除息文件第 {line_no} 行：派现和送转都为 0")
        if problem := action_problem(cash, shares, None):
            raise CsvImportError(f"除权除息文件第 {line_no} 行（{ex_date}）：{problem}")
        actions.append(CorporateAction(symbol, ex_date, cash, shares, None, source, "cash_shares", at))
    return actions
