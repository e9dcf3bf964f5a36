"""Broker statements as the clients export them read to the same fills: 同花顺 交割单 CSV
(UTF-8 with BOM, Excel-forced codes), 东方财富 ".xls" that is really tab-separated GBK, 通达信
资金对账单 .txt (GBK, fixed-width columns, title and summary lines), and the same content
re-encoded (UTF-16, GB18030, UTF-8 without BOM), as an HTML ".xls", as a real .xlsx, and
listed newest first. The positions and cash they add up to are computed by hand below."""

from __future__ import annotations

import codecs
from datetime import date, datetime, time
from decimal import Decimal
from pathlib import Path

import pytest

from pixiu_cli.account.ledger import positions
from pixiu_cli.account.statements.reader import read_statement
from pixiu_cli.account.statements.rows import StatementError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "statements"
THS = FIXTURES / "ths_jiaogedan.csv"
EASTMONEY = FIXTURES / "eastmoney_jiaogedan.xls"
TDX = FIXTURES / "tdx_duizhangdan.txt"
TODAY = date(2025, 8, 20)  # the statements end on 2025-08-15


def read(path, **options):
    return read_statement(path, today=TODAY, **options)


def essence(statement):
    """What a fill is, whatever client exported it (ids and times differ by layout)."""
    return [
        (f.day, f.kind, f.symbol, f.quantity, f.price, f.amount, f.fees, f.cash_change, f.balance)
        for f in statement.fills
    ]


def _ths_text() -> str:
    return THS.read_bytes().decode("utf-8-sig")


def _variants(tmp_path: Path) -> dict[str, Path]:
    text = _ths_text()
    out = {}
    for name, data in {
        "utf16.csv": codecs.BOM_UTF16_LE + text.encode("utf-16-le"),
        "utf16_no_bom.csv": text.encode("utf-16-le"),
        "gb18030.csv": text.encode("gb18030"),
        "utf8_no_bom.csv": text.encode("utf-8"),
    }.items():
        out[name] = tmp_path / name
        out[name].write_bytes(data)
    lines = text.strip().splitlines()
    newest_first = tmp_path / "newest_first.csv"
    newest_first.write_text("\n".join([lines[0], *reversed(lines[1:])]) + "\n", encoding="utf-8")
    out["newest_first"] = newest_first
    rows = [line.split(",") for line in lines]
    html = "<html><body><table>" + "".join(
        "<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows
    )
    out["html.xls"] = tmp_path / "html.xls"
    out["html.xls"].write_text(html + "</table></body></html>", encoding="gbk")
    return out


def test_every_layout_and_encoding_reads_to_the_same_fills(tmp_path):
    expected = essence(read(THS))
    assert len(expected) == 12
    assert essence(read(EASTMONEY)) == expected
    assert essence(read(TDX)) == expected
    for name, path in _variants(tmp_path).items():
        assert essence(read(path)) == expected, name


def test_a_real_xlsx_reads_like_the_csv(tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["招商证券 交割单"])  # a title row above the header
    for n, line in enumerate(_ths_text().strip().splitlines()):
        cells = []
        for i, cell in enumerate(line.split(",")):
            if n and i == 0:  # date and time cells as a client writes them: Excel dates and times
                cells.append(datetime.strptime(cell, "%Y%m%d"))
                continue
            if n and i == 1:
                cells.append(time.fromisoformat(cell))
                continue
            cell = cell.removeprefix('="').removesuffix('"')
            try:
                cells.append(float(cell) if "." in cell else int(cell) if cell.lstrip("-").isdigit() else cell)
            except ValueError:
                cells.append(cell)
        sheet.append(cells)
    path = tmp_path / "交割单.xlsx"
    book.save(path)
    assert essence(read(path)) == essence(read(THS))


def test_the_layout_is_named_and_skipped_rows_are_counted():
    assert read(THS).layout == "同花顺交割单"
    assert read(EASTMONEY).layout == "东方财富交割单"
    tdx = read(TDX)
    assert tdx.layout == "通达信对账单"
    # 配股入帐 is the 配股缴款's shares arriving: reported, not counted twice
    assert [s.reason for s in tdx.skipped] == ["配股股份到账（已按配股缴款计入）"]
    assert tdx.accounts == {"0123456789", "A123456789"}


def test_positions_and_cash_match_a_hand_computation():
    statement = read(TDX)
    held = positions(statement.fills)
    midea = held["000333"]
    # 000333 美的集团
    #   buy 500 @ 70: 35,000 + fees 5.00 + 0.35 = 35,005.35 in (basis and money in)
    #   sell 200 @ 75: 15,000 − fees 12.65 = 14,987.35 out; cost out 35,005.35 × 200/500 = 14,002.14
    #     realised 14,987.35 − 14,002.14 = 985.21; basis 21,003.21; money in 20,018.00; 300 shares
    #   红股入账 90 → 390 shares; 股息 900 → realised 1,885.21, money in 19,118.00
    #   sell 100 @ 80: 8,000 − 9.08 = 7,990.92; cost out 21,003.21 × 100/390 = 5,385.44
    #     realised 1,885.21 + 7,990.92 − 5,385.44 = 4,490.69; basis 15,617.77; money in 11,127.08
    #   股息红利税补缴 18 → realised 4,472.69, money in 11,145.08, dividends 900 − 18 = 882
    #   290 shares: 摊薄成本 11,145.08 / 290 = 38.4313; average 15,617.77 / 290 = 53.8544
    # in Decimal, exactly: the ledger rounds nothing
    assert midea.shares == 290
    assert midea.invested == Decimal("11145.08") and midea.diluted_cost == Decimal("11145.08") / 290
    assert round(midea.average_cost, 4) == Decimal("53.8544")
    assert midea.basis - midea.realised_pnl == midea.invested  # the two costs differ by what was realised
    assert round(midea.realised_pnl, 2) == Decimal("4472.69")
    assert (midea.dividends, midea.bonus_shares, midea.fees) == (Decimal("882"), 90, Decimal("27.08"))
    # 600036: buy 1,000 @ 42.50 + fees 13.18, 配股 300 @ 30 = 9,000 → 51,513.18 / 1,300 = 39.6255
    bank = held["600036"]
    assert (bank.shares, bank.invested, bank.basis) == (1300, Decimal("51513.18"), Decimal("51513.18"))
    assert round(bank.diluted_cost, 4) == Decimal("39.6255")
    # 603375 新股入帐 500 @ 10.50
    assert (held["603375"].shares, held["603375"].average_cost) == (500, Decimal("10.5"))
    # cash: 100,000 − 35,005.35 − 42,513.18 + 14,987.35 − 5,250 + 900 + 3.21 − 9,000
    #       + 7,990.92 − 18 − 5,000 = 27,094.95, the last 资金余额
    assert statement.cash.amount == pytest.approx(27094.95)
    assert statement.cash.as_of == "2025-08-15"


def test_an_unknown_layout_names_the_columns_found_and_needed(tmp_path):
    path = tmp_path / "export.csv"
    path.write_text("日期,品种,方向,手数\n2025-03-03,IF2503,多,1\n", encoding="utf-8")
    with pytest.raises(StatementError) as caught:
        read(path)
    message = str(caught.value)
    assert "找到 日期、品种、方向、手数" in message and "需要 成交日期/交割日期/发生日期、业务名称/操作" in message
    assert "\n" not in message


def test_a_bad_number_names_the_row_and_the_field(tmp_path):
    lines = _ths_text().splitlines()
    lines[3] = lines[3].replace("42.500", "42,5O0")  # a letter O for a zero, inside quotes below
    lines[3] = lines[3].replace("42,5O0", '"42,5O0"')
    path = tmp_path / "bad.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(StatementError) as caught:
        read(path)
    assert "第 4 行「成交均价」：不是数字 '42,5O0'" in str(caught.value)
    assert "未导入任何内容" in str(caught.value)
    skipped = read(path, skip_bad=True)
    assert len(skipped.fills) == 11 and [b.line for b in skipped.bad] == [4]


def test_broker_given_checks_the_columns():
    # 通达信 exports two layouts: the message names the one the file is closest to
    with pytest.raises(StatementError, match="这不像通达信交割单：缺少列 交割日期、业务名称；"):
        read(THS, broker="tdx")
    assert read(TDX, broker="tdx").layout == "通达信对账单"


def test_unknown_business_is_reported_not_dropped(tmp_path):
    text = _ths_text().rstrip() + "\r\n20250816,10:00:00,,,融资融券划转,0,0,0,0,0,0,0,100.00,27194.95,,\r\n"
    path = tmp_path / "more.csv"
    path.write_text(text, encoding="utf-8")
    statement = read(path)
    assert statement.unknown == {"融资融券划转": 1}
    assert [s.reason for s in statement.skipped] == ["配股股份到账（已按配股缴款计入）"]  # the known ones only
    assert statement.cash.amount == 27194.95  # its balance still says what the cash was


def test_reverse_repos_are_reported_as_such(tmp_path):
    """A 国债逆回购 is a "sell" of 204001 / 131810 that lends cash overnight: never a stock."""
    text = _ths_text().rstrip() + (
        '\r\n20250818,14:50:00,="204001",GC001,卖出,100,1.850,10000.00,0.10,0,0,0,-10000.10,17094.85,1006,A123456789'
        '\r\n20250819,09:00:00,="204001",GC001,融券购回,100,0,10000.51,0,0,0,0,10000.51,27095.36,,A123456789\r\n'
    )
    path = tmp_path / "repo.csv"
    path.write_text(text, encoding="utf-8")
    statement = read(path)
    assert len(statement.fills) == 12 and "204001" not in {f.symbol for f in statement.fills}
    assert [s.reason for s in statement.skipped].count("国债逆回购（借出的资金在资金余额中）") == 2
    assert statement.cash.amount == 27095.36
