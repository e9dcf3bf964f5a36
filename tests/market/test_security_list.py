"""The shipped security list (data/securities/stock_basic.csv, provenance in its README) read
into dataclasses: every listed stock's code, quoted and typed name, board, listing date and
risk-warning status."""

from __future__ import annotations

import csv
from collections import Counter

import pytest

from pixiu_cli.kernel.resources import data_dir
from pixiu_cli.market.securities import as_securities, parse_name, shipped_security_list


def test_every_row_of_the_shipped_file_is_a_stock():
    listing = shipped_security_list()
    with (data_dir() / "securities" / "stock_basic.csv").open(encoding="utf-8") as handle:
        raw = list(csv.DictReader(handle))
    assert len(listing) == len(raw) == 5448
    assert listing.as_of == max(r["list_date"] for r in raw) == "2025-11-07"
    boards = Counter(s.board for s in listing.stocks)
    assert boards == {"main": 1700 + 1485, "star": 592, "chinext": 1389, "bse": 282}  # the README's prefix table
    assert sum(s.is_st for s in listing.stocks) == 178
    assert [s.full_name for s in listing.stocks if s.debut == "C"] == ["C德力佳", "C丰倍", "C大明"]
    assert {s.exchange for s in listing.stocks} == {"SH", "SZ", "BJ"}


@pytest.mark.parametrize(
    ("code", "full", "short", "board", "listed"),
    [
        ("300750", "宁德时代", "宁德时代", "chinext", "2018-06-11"),
        ("600519", "贵州茅台", "贵州茅台", "main", "2001-08-27"),
        ("002594", "比亚迪", "比亚迪", "main", "2011-06-30"),
        ("603092", "C德力佳", "德力佳", "main", "2025-11-07"),
        ("689009", "九号公司-WD", "九号公司", "star", "2020-10-29"),
        ("000100", "TCL科技", "TCL科技", "main", "2004-01-30"),
    ],
)
def test_known_stocks(code, full, short, board, listed):
    stock = shipped_security_list().get(code)
    assert (stock.full_name, stock.short_name, stock.board, stock.list_date) == (full, short, board, listed)


def test_bse_920_codes_are_beijing():
    bse = [s for s in shipped_security_list().stocks if s.code.startswith("92")]
    assert len(bse) == 282 and all(s.board == "bse" and s.exchange == "BJ" for s in bse)


@pytest.mark.parametrize(
    ("name", "short", "st", "debut", "reform", "flags"),
    [
        ("*ST天微", "天微", "*ST", None, False, ""),
        ("ST华通", "华通", "ST", None, False, ""),
        ("N华新", "华新", None, "N", False, ""),
        ("C德力佳", "德力佳", None, "C", False, ""),
        ("S佳通", "佳通", None, None, True, ""),
        ("S*ST前锋", "前锋", "*ST", None, True, ""),
        ("寒武纪-U", "寒武纪", None, None, False, "U"),
        ("精进电动-UW", "精进电动", None, None, False, "UW"),
        ("万科A", "万科A", None, None, False, ""),
        ("GQY视讯", "GQY视讯", None, None, False, ""),
        ("C", "C", None, None, False, ""),
    ],
)
def test_status_marks_are_not_the_name(name, short, st, debut, reform, flags):
    parts = parse_name(name)
    assert (parts.short_name, parts.st, parts.debut, parts.reform_pending) == (short, st, debut, reform)
    assert parts.flags == frozenset(flags)


def test_security_master_rows_carry_the_lists_date():
    rows = as_securities(shipped_security_list())
    byd = next(r for r in rows if r.symbol == "002594")
    assert (byd.name, byd.board, byd.list_date, byd.source, byd.updated_at) == (
        "比亚迪",
        "main",
        "2011-06-30",
        "shipped",
        "2025-11-07",
    )
    assert next(r for r in rows if r.symbol == "603092").name == "C德力佳"
