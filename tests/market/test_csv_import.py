"""CSV shapes (generic, 通达信 GBK export, 成交量(手), tushare), adjusted files undone on
import, and bad files refused whole with one line naming the row."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date

import pytest

from pixiu_cli.market.bars import adjust
from pixiu_cli.market.csv_source import CsvImportError, parse_actions, parse_bars
from pixiu_cli.market.data import MarketData
from pixiu_cli.market.handle import Market
from pixiu_cli.market.store import MarketStore
from tests.helpers import MARKET_FIXTURES as FIXTURES
from tests.helpers import load

REAL = [line.split(",") for line in (FIXTURES / "000001.csv").read_text().splitlines()[1:]]
JUNE_2016 = [r for r in REAL if "2016-06-13" <= r[0] <= "2016-06-17"]


def test_tdx_export_in_gbk_with_title_and_footer(db, tmp_path):
    lines = [
        "000001 平安银行 日线 不复权",
        "      日期\t    开盘\t    最高\t    最低\t    收盘\t    成交量\t    成交额",
    ]
    lines += ["\t".join([r[0].replace("-", "/"), *r[1:5], r[5], "12345678.00"]) for r in JUNE_2016]
    lines.append("数据来源:通达信")
    path = tmp_path / "SZ#000001.txt"
    path.write_bytes("\r\n".join(lines).encode("gbk"))
    result = load(db, "000001", path=path, actions=False, name="平安银行")
    assert (result.shape, result.volume_unit, result.rows) == ("tdx", "shares", len(JUNE_2016))
    bars = MarketStore(db).bars("000001").bars()
    assert bars[0].date == "2016-06-13" and bars[0].volume == float(JUNE_2016[0][5]) and bars[0].amount == 12345678
    assert [g.date for g in result.suspects] == ["2016-06-16"]


@pytest.mark.parametrize(
    "title, symbol, adjusted, message",
    [
        (
            "000001 平安银行 日线 前复权",
            "000001",
            "none",
            "标题写明「前复权」，请用 --adjusted qfq（并提供 --actions）",
        ),
        ("000001 平安银行 日线 不复权", "000002", "none", "文件标题是 000001，与 --symbol 000002 不符"),
    ],
)
def test_tdx_title_contradicting_the_flags_is_refused(db, tmp_path, title, symbol, adjusted, message):
    path = tmp_path / "export.txt"
    path.write_bytes(f"{title}\n日期\t开盘\t最高\t最低\t收盘\t成交量\n2016/06/13\t10\t11\t9\t10\t100\n".encode("gbk"))
    with pytest.raises(CsvImportError, match=re.escape(message)):
        load(db, symbol, path=path, actions=False, adjusted=adjusted)
    assert MarketStore(db).series() == []


def test_chinese_header_with_volume_in_lots_is_stored_in_shares():
    text = "交易日期,开盘价,最高价,最低价,收盘价,成交量(手),成交额(元)\n20160613,10.5,10.6,10.4,10.5,1234,100\n"
    parsed = parse_bars(text)
    assert parsed.volume_unit == "lots" and parsed.bars[0].volume == 123400 and parsed.bars[0].date == "2016-06-13"
    assert parse_bars(text, volume_unit="shares").bars[0].volume == 1234  # the flag overrides the guess


def test_tushare_daily_dump_units():
    text = (
        "ts_code,trade_date,open,high,low,close,pre_close,change,pct_chg,vol,amount\n"
        "000001.SZ,20160614,10.5,10.6,10.4,10.5,10.4,0.1,0.96,1234.5,2000.0\n"
        "000001.SZ,20160613,10.4,10.6,10.3,10.4,10.4,0,0,1000,1500.0\n"
    )
    parsed = parse_bars(text)
    assert parsed.shape == "tushare" and [b.date for b in parsed.bars] == ["2016-06-13", "2016-06-14"]
    assert parsed.bars[1].volume == 123450 and parsed.bars[1].amount == 2_000_000  # 手 and 千元


@pytest.mark.parametrize(
    "text, message",
    [
        ("date,open,high,low,close,volume\n2016-06-13,10,11,9,10,100\n2016-06-14,10,9,11,10,100\n", "第 3 行"),
        ("date,open,high,low,close,volume\n2016-06-13,10,11,9,abc,100\n", "第 2 行：收盘价「abc」不是数字"),
        ("date,open,high,low,close,volume\n2016-13-13,10,11,9,10,100\n", "日期「2016-13-13」无法识别"),
        ("date,open,high,low,close,volume\n2016-06-13,10,11,9,10,100\n2016-06-13,10,11,9,10,100\n", "重复"),
        ("date,open,close\n2016-06-13,10,11\n", "缺少列：high、low、volume"),
        ("hello\n", "没有找到表头"),
        ("date,open,high,low,close,volume\n", "没有数据行"),
        ("date,open,high,low,close,volume\n2016-06-13,10,11,9,nan,100\n", "不是有效数值"),
        # plain files the column parser declines, so the row parser names the line
        ("date,open,high,low,close,volume\n2016-06-13,10,11,9,10,100\n2016-06-14,10,11,9,10\n", "第 3 行：只有 5 列"),
        (
            "date,open,high,low,close,volume\n2016-06-14,10,11,9,10,100\n2016-06-13,10,11,9,10,1\n2016-06-14,10,11,9,10,1\n",
            "第 4 行：日期 2016-06-14 重复",
        ),
        (
            "date,open,high,low,close,volume\n2016-06-13,10,11,9,10,100\n2016-02-30,10,11,9,10,100\n",
            "第 3 行：日期「2016-02-30」无法识别",
        ),
        (
            "date,open,high,low,close,volume\n2016-06-13,10,11,9,10,100\n2999-01-04,10,11,9,10,100\n",
            "第 3 行：日期 2999-01-04 在未来",
        ),
        (
            "date,open,high,low,close,volume\n1990-01-02,10,11,9,10,100\n2016-06-13,10,11,9,10,100\n",
            "第 2 行：日期 1990-01-02 早于",
        ),
        (
            "date,open,high,low,close,volume\n2016-06-13,10,11,9,10,100\n2016-06-14,10,11,9,10,-5\n",
            "第 3 行：成交量 -5 不是有效数值",
        ),
        (
            "date,open,high,low,close,volume\n2016-06-13,10,11,9,10,100\n2016-06-14,10,11,9,0,100\n",
            "第 3 行（2016-06-14）：价格 不自洽",
        ),
        ("date,open,high,low,close,volume\n2016-06-13,10,200000,9,10,100\n", "第 2 行（2016-06-13）：最高价"),
    ],
)
def test_bad_rows_refuse_the_file_naming_the_line(text, message):
    with pytest.raises(CsvImportError, match=message):
        parse_bars(text)


def test_a_bad_file_writes_nothing(db, tmp_path):
    load(db, "000002")
    before = MarketStore(db).series(["000002"])[0]
    bad = tmp_path / "bad.csv"
    bad.write_text("date,open,high,low,close,volume\n2025-06-03,10,11,9,10,100\n2025-06-04,x,11,9,10,100\n")
    with pytest.raises(CsvImportError):
        load(db, "000002", path=bad)
    assert MarketStore(db).series(["000002"])[0] == before


def test_actions_file_format():
    actions = parse_actions("ex_date,cash_per_share,shares_per_share\n2016-05-06,1.2,0.5\n", "000333")
    assert [(a.ex_date, a.cash_per_share, a.shares_per_share) for a in actions] == [("2016-05-06", 1.2, 0.5)]
    with pytest.raises(CsvImportError, match="表头应为"):
        parse_actions("date,cash\n2016-05-06,1.2\n", "000333")
    with pytest.raises(CsvImportError, match="都为 0"):
        parse_actions("ex_date,cash_per_share,shares_per_share\n2016-05-06,0,0\n", "000333")


@pytest.mark.parametrize("mode", ["qfq", "hfq"])
def test_adjusted_file_is_stored_unadjusted(db, tmp_path, mode):
    load(db, "000333")
    data = MarketData(Market(db))
    real = data.bars("000333", "none")
    adjusted = adjust(real, MarketStore(db).actions("000333"), mode)
    path = tmp_path / f"{mode}.csv"
    path.write_text(
        "date,open,high,low,close,volume\n"
        + "".join(f"{b.date},{b.open:.4f},{b.high:.4f},{b.low:.4f},{b.close:.4f},{b.volume}\n" for b in adjusted.bars())
    )
    with pytest.raises(CsvImportError, match="需要 --actions"):
        load(db, "000333", path=path, actions=False, adjusted=mode)
    load(db, "000333", path=path, adjusted=mode)
    stored = data.bars("000333", "none")
    assert max(abs(a - b) for a, b in zip(stored.close, real.close)) < 0.001
    assert MarketStore(db).series(["000333"])[0].file_adjusted == mode


def _by_column_and_by_row(text: str, unit: str = "shares", shape: str = "generic"):
    from pixiu_cli.market import csv_source

    lines = text.splitlines()
    mapping = csv_source._map_header(lines[0].split(","))
    today = date(2026, 12, 1)  # after every bar here
    by_column = csv_source._parse_columns(lines[1:], ",", mapping, unit, shape, today)
    rows = [line.split(",") for line in lines[1:]]
    by_row = csv_source._parse_rows(rows, 0, mapping, max(mapping.values()), unit, shape, today)
    return by_column, sorted(by_row.values(), key=lambda b: b.date)


def test_the_column_parser_reads_what_the_row_parser_reads():
    text = (
        "date,open,high,low,close,volume,amount,tradestatus,isST\n"
        "2026-01-05,10.0,10.5,9.8,10.2,12345,125919.0,1,0\n"
        "2026-01-06,10.2,10.2,10.2,10.2,0,0,0,0\n"
        "2026-01-07,10.3,10.9,10.1,10.8,999,10789.2,1,1\n"
    )
    by_column, by_row = _by_column_and_by_row(text)
    assert by_column is not None and by_column.bars() == by_row
    assert by_column.trade_status == (1, 0, 1) and by_column.is_st == (False, False, True)
    assert parse_bars(text).bars == by_row
    lots, _ = _by_column_and_by_row(text, "lots", "tushare")
    assert lots.volume[0] == 1234500 and lots.amount[0] == 125919000.0


@pytest.mark.parametrize("code", ["000001", "000002", "000333"])
def test_real_histories_by_column_equal_them_by_row_in_either_order(code):
    lines = (FIXTURES / f"{code}.csv").read_text().splitlines()
    for text in ("\n".join(lines), "\n".join([lines[0], *reversed(lines[1:])])):  # tushare dumps run newest first
        by_column, by_row = _by_column_and_by_row(text)
        assert by_column is not None and by_column.bars() == by_row and len(by_row) == len(lines) - 1


def test_a_file_the_column_parser_declines_is_read_row_by_row_naming_the_line():
    good = 'date,open,high,low,close,volume\n2026-01-05,10,11,9,10.5,"1,200"\n'
    assert parse_bars(good).bars[0].volume == 1200  # a thousands separator: the row parser's job
    bad = "date,open,high,low,close,volume\n2026-01-05,10,11,9,10.5,100\n2026-01-06,10,9,11,10.5,100\n"
    with pytest.raises(CsvImportError, match="第 3 行"):
        parse_bars(bad)


@pytest.mark.parametrize(
    "text",
    [
        "date,open,high,low,close,volume\n2016-06-14,10,11,9,10.5,200\n2016-06-13,10,11,9,10,100\n",  # newest first
        "date,open,high,low,close,volume\n2016-06-13,10,11,9,10,100\n\n2016-06-14,10,11,9,10.5,200\n",  # a blank line
        "date,open,high,low,close,volume\n2016-06-13,10,11,9,10,100\n2016-06-14,10,11,9,10.5,200\n\n\n",
        'date,open,high,low,close,volume\n"2016-06-13",10,11,9,10,100\n2016-06-14,"10",11,9,10.5,200\n',  # quoted
        "date,open,high,low,close,volume\n2016/06/13,10,11,9,10,100\n20160614,10,11,9,10.5,200\n",  # other spellings
        "date\topen\thigh\tlow\tclose\tvolume\n2016-06-13\t10\t11\t9\t10\t100\n2016-06-14\t10\t11\t9\t10.5\t200\n",
    ],
)
def test_files_in_every_shape_read_the_same_bars(text):
    bars = parse_bars(text).bars
    assert [(b.date, b.close, b.volume) for b in bars] == [("2016-06-13", 10.0, 100.0), ("2016-06-14", 10.5, 200.0)]


def test_a_plain_file_is_stored_exactly_as_parsed(db):
    from pixiu_cli.market.csv_source import read_text

    for code in ("000002", "000333"):
        result = load(db, code, actions=False)  # no actions: the columns go to the store as parsed
        parsed = parse_bars(read_text(FIXTURES / f"{code}.csv"))
        assert MarketStore(db).bars(code).bars() == parsed.bars
        assert (result.rows, result.first, result.last) == (len(parsed.bars), parsed.bars[0].date, parsed.bars[-1].date)


@pytest.mark.parametrize("code", ["000001", "000002", "000333"])
def test_gaps_over_columns_are_the_gaps_over_bars(code):
    from pixiu_cli.market.bars import series_gaps, suspect_gaps
    from pixiu_cli.market.csv_source import read_text

    series = replace(parse_bars(read_text(FIXTURES / f"{code}.csv")).series, symbol=code)
    found = series_gaps(series, [])
    assert found == suspect_gaps(code, series.bars(), [])
    assert code == "000002" or found  # the unrecorded ex-rights days of 000001 and 000333 are seen


def test_a_plain_file_is_imported_without_a_bar_per_row(db, monkeypatch):
    from pixiu_cli.market.bars import Bar

    made = []
    init = Bar.__init__
    monkeypatch.setattr(Bar, "__init__", lambda self, *a, **kw: (made.append(1), init(self, *a, **kw))[1])
    result = load(db, "000002")  # 2,295 rows, no actions file
    assert result.rows == 2295 and len(made) == 0
