"""The one plausibility gate every bar and corporate action passes before it is stored: fed
by akshare and baostock stand-ins in their libraries' own return shapes (a DataFrame with
akshare's columns, a ResultData-like object) and by CSV files. Implausible rows are refused
with a line naming source, symbol, date and field; the rest are stored."""

from __future__ import annotations

import json
import math
import sys
import warnings
from datetime import date, datetime
from types import SimpleNamespace

import pytest

from pixiu_cli.market.akshare_source import AkshareSource
from pixiu_cli.market.baostock_source import BaostockSource
from pixiu_cli.market.bars import CorporateAction
from pixiu_cli.market.calendar import SHANGHAI
from pixiu_cli.market.csv_source import CsvImportError, parse_bars
from pixiu_cli.market.store import MarketStore, SecurityMaster
from pixiu_cli.market.sync import sync
from tests.helpers import (
    ResultData,
    akshare_dividend_frame,
    akshare_frame,
    akshare_trade_date_frame,
    clean_env,
    pixiu_in_process,
    weekdays,
)

NOW = datetime(2024, 3, 11, 16, 0, tzinfo=SHANGHAI)  # a Monday, after the close


def synced(db, source, symbol, since, now=NOW):
    """One symbol's sync outcome."""
    return sync(MarketStore(db), SecurityMaster(db), source, [symbol], since=since, now=now)[0]


def sina_frame(rows):
    """`stock_zh_a_daily(adjust="")` as akshare builds it: English columns, dates via
    `pd.to_datetime(..., errors="coerce").dt.date`, volume in shares."""
    return akshare_frame(
        [
            {"date": d, "open": o, "high": h, "low": lo, "close": c, "volume": 1e6, "amount": 1e6 * c}
            | {"outstanding_share": 1e9, "turnover": 0.001}
            for d, o, h, lo, c in rows
        ],
        "date",
    )


def dividend_row(ex_date, bonus="0", transfer="0", cash="0"):
    """A 实施 row of the dividend table (per 10 shares, as akshare's columns are)."""
    return ["2024-02-20", bonus, transfer, cash, "实施", ex_date, ex_date, ex_date]


def fake_akshare(bars, dividends):
    return SimpleNamespace(
        stock_zh_a_daily=lambda symbol, start_date, end_date, adjust: sina_frame(bars),
        stock_history_dividend_detail=lambda symbol, indicator: akshare_dividend_frame(dividends),
        tool_trade_date_hist_sina=lambda: akshare_trade_date_frame(["2024-03-04"]),
    )


FLAT_50 = [(d, 50.0, 51.0, 49.0, 50.0) for d in ("2024-03-04", "2024-03-05", "2024-03-06", "2024-03-07", "2024-03-08")]


def test_akshare_absurd_dividend_and_bonus_shares_are_refused_and_the_bars_stored(db):
    saturday = ("2024-03-09", 50.0, 51.0, 49.0, 50.0)  # Sina's dates are real dates, not sessions
    dividends = [
        dividend_row("2024-03-05", cash="1000000"),  # 10派1,000,000: ¥100,000 a share on a ¥50 stock
        dividend_row("2024-03-06", bonus="1e300"),  # 1e299 new shares a share
    ]
    source = AkshareSource(timeout=60, module=fake_akshare([*FLAT_50, saturday], dividends))
    outcome = synced(db, source, "600000", "2024-03-01")
    assert (outcome.error, outcome.rows, outcome.first, outcome.last) == (None, 5, "2024-03-04", "2024-03-08")
    assert outcome.refused == (
        "未保存：akshare 600000 2024-03-09 日期 2024-03-09 是周六，交易所休市",
        "未保存：akshare 600000 2024-03-05 每股派现 100000 元不低于除权前收盘价 50 元",
        "未保存：akshare 600000 2024-03-06 每股送转 1e+299 股超过上限 10",
    )
    assert MarketStore(db).actions("600000") == []
    assert MarketStore(db).bars("600000").dates == (
        "2024-03-04",
        "2024-03-05",
        "2024-03-06",
        "2024-03-07",
        "2024-03-08",
    )


# 000333 美的集团 around its real 10派12转增5 (ex-date 2016-05-06): close 32.99 the day before,
# open 20.97 on the day.
MIDEA = [("2016-05-05", 33.07, 33.24, 32.85, 32.99), ("2016-05-06", 20.97, 21.14, 20.35, 20.35)]


@pytest.mark.parametrize(
    ("row", "refusal"),
    [
        # (32.99 − 1.2) / (1 + 0.5) = 21.193; 20.97 / 21.193 − 1 = −1.05%: inside ±10%
        (dividend_row("2016-05-06", transfer="5", cash="12"), None),
        # ¥32.98 and 10 new shares: (32.99 − 32.98) / 11 = ¥0.0009, below a fen
        (
            dividend_row("2016-05-06", transfer="100", cash="329.8"),
            "未保存：akshare 000333 2016-05-06 除权参考价 前收盘 32.99 元除权后为 0.0009091 元，不是有效价格",
        ),
        # 10派12 alone: (32.99 − 1.2) / 1 = 31.79; 20.97 / 31.79 − 1 = −34%: beyond ±10%
        (
            dividend_row("2016-05-06", cash="12"),
            "未保存：akshare 000333 2016-05-06 除权参考价 前收盘 32.99 元除权后应为 31.79 元，"
            "而除权日开盘 20.97 元，超出 ±10% 涨跌幅",
        ),
    ],
)
def test_an_action_is_checked_against_the_gap_on_its_ex_date(db, row, refusal):
    source = AkshareSource(timeout=60, module=fake_akshare(MIDEA, [row]))
    outcome = synced(db, source, "000333", "2016-05-05")
    assert outcome.refused == ((refusal,) if refusal else ())
    assert len(MarketStore(db).actions("000333")) == (0 if refusal else 1)
    assert outcome.rows == 2  # the bars are stored either way
    if refusal:  # the gap an action was refused for is still named as unexplained
        assert [g.date for g in outcome.suspects] == ["2016-05-06"]


def test_the_ex_date_band_is_the_boards_limit_around_the_reference_price():
    from pixiu_cli.market.bars import PriceColumns
    from pixiu_cli.market.gate import action_refusal

    def refused(symbol, ex_open, cash=1.0, day="2024-03-05", before="2024-03-04", st=False):
        prices = PriceColumns(symbol, [before, day], [10.0, ex_open], [10.0, ex_open], [st, st])
        return action_refusal(CorporateAction(symbol, day, cash, 0.0), prices, date(2024, 3, 29))

    # reference (10 − 1) / 1 = 9.00; main board ±10% plus the fen rounding of both prices:
    # 9 × (0.10 + 0.005) + 0.01 = 0.955, so opens from 8.045 to 9.955 fit
    assert refused("600000", 8.10) is None and refused("600000", 9.90) is None
    assert refused("600000", 8.04) and refused("600000", 9.96)
    # ChiNext ±20%: 9 × 0.205 + 0.01 = 1.855 → down to 7.145
    assert refused("300750", 7.20) is None and refused("300750", 7.14)
    # a main-board ST stock before 2026-07-06: ±5% → 9 × 0.055 + 0.01 = 0.505 → down to 8.495
    assert refused("600000", 8.50, st=True) is None and refused("600000", 8.49, st=True)
    # after a suspension of more than ten days the reopening is news, not the action: not checked
    assert refused("600000", 5.00, day="2024-03-20") is None
    # before daily limits existed (1996-12-16) only the reference price itself is checked
    assert refused("600000", 5.00, day="1995-03-06", before="1995-03-03") is None


def baostock_with(rows, dividends=(), factors=()):
    return SimpleNamespace(
        login=lambda: SimpleNamespace(error_code="0", error_msg="success"),
        logout=lambda: SimpleNamespace(error_code="0"),
        query_history_k_data_plus=lambda code, fields, **kw: ResultData(fields.split(","), rows),
        query_adjust_factor=lambda **kw: ResultData(["dividOperateDate", "backAdjustFactor"], list(factors)),
        query_dividend_data=lambda code, year, yearType: ResultData(
            ["dividOperateDate", "dividCashPsBeforeTax", "dividStocksPs", "dividReserveToStockPs"],
            [r for r in dividends if r[0][:4] == year],
        ),
        query_trade_dates=lambda **kw: ResultData(["calendar_date", "is_trading_day"], []),
        query_stock_basic=lambda: ResultData(["code", "code_name", "type", "status"], []),
    )


def test_baostock_impossible_dates_and_prices_and_factor_are_refused_and_the_rest_stored(db):
    def row(day, price="50.0", high="51.0"):
        return [day, price, high, "49.0", price, "1000000", "50000000.0", "1", "0"]

    rows = [row("2024-03-04"), row("2024-02-30"), row("2024-03-05", high="nan"), row("2024-03-06", high="2e6")]
    rows.append(row("2024-03-07"))
    factors = [["2024-03-07", "1e299"]]  # a back-adjust factor no event could have
    source = BaostockSource(timeout=5, module=baostock_with(rows, factors=factors))
    outcome = synced(db, source, "600000", "2024-02-01")
    assert outcome.refused == (
        "未保存：baostock 600000 2024-02-30 日期 「2024-02-30」不是有效的 YYYY-MM-DD 日期",
        "未保存：baostock 600000 2024-03-06 最高价 2e+06 元超过任何 A 股价格（上限 100,000 元）",
        "未保存：baostock 600000 2024-03-07 除权比例 1e+299 不可能",
    )  # the nan high is no price: baostock's suspended-day rule leaves it out, as before
    assert MarketStore(db).bars("600000").dates == ("2024-03-04", "2024-03-07")
    assert MarketStore(db).actions("600000") == []


@pytest.mark.parametrize(
    ("day", "named"),
    [
        ("2024-03-12", "第 3 行：日期 2024-03-12 在未来（今天是 2024-03-11）"),  # tomorrow
        ("2024-03-09", "第 3 行：日期 2024-03-09 是周六，交易所休市"),
        ("2025-10-01", "第 3 行：日期 2025-10-01 是国庆节、中秋节，交易所休市"),  # a Wednesday
    ],
)
def test_csv_bars_dated_tomorrow_on_a_saturday_or_on_national_day_are_refused(day, named):
    today = date(2024, 3, 11) if day < "2025" else date(2025, 10, 9)
    text = f"date,open,high,low,close,volume\n2024-03-08,10,11,9,10,100\n{day},10,11,9,10,100\n"
    with pytest.raises(CsvImportError) as refused:
        parse_bars(text, today=today)
    assert str(refused.value).startswith(named)


def test_a_plain_file_read_by_column_refuses_closed_days_as_the_row_parser_does():
    days = weekdays("2025-09-23", 10)  # Tuesday 09-23 … 10-06: the sixth row after 09-23 is 10-01
    body = "".join(f"{d},10,11,9,10,100\n" for d in days)
    with pytest.raises(CsvImportError, match="第 8 行：日期 2025-10-01 是国庆节、中秋节，交易所休市"):
        parse_bars("date,open,high,low,close,volume\n" + body, today=date(2025, 10, 9))
    fine = [d for d in days if d < "2025-10-01"]
    parsed = parse_bars("date,open,high,low,close,volume\n" + "".join(f"{d},10,11,9,10,100\n" for d in fine))
    assert parsed.series.dates == tuple(fine)


def test_a_sync_of_an_absurd_bonus_leaves_profiles_free_of_overflow(monkeypatch, tmp_path):
    days = [d for d in weekdays("2023-01-03", 300) if parse_ok(d)]
    bars = [(d, 50.0, 51.0, 49.0, 50.0 + (i % 5) * 0.1) for i, d in enumerate(days)]
    ex_date = days[150]
    fake = fake_akshare(bars, [dividend_row(ex_date, bonus="1e300")])
    fake.tool_trade_date_hist_sina = lambda: akshare_trade_date_frame(days)
    monkeypatch.setitem(sys.modules, "akshare", fake)
    env = clean_env(tmp_path / "home", PIXIU_NOW=f"{days[-1]}T16:00:00")
    with warnings.catch_warnings(record=True) as caught:  # numpy's overflow warnings, as stored 1e299 gave
        warnings.simplefilter("always")
        done = pixiu_in_process(env, "data", "sync", "600000", "--source", "akshare", "--since", days[0], text=True)
        profile = pixiu_in_process(env, "profile", "600000", "--json", text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert f"未保存：akshare 600000 {ex_date} 每股送转 1e+299 股超过上限 10" in done.stdout
    assert [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)] == []
    rows = json.loads(profile.stdout)
    assert profile.returncode == 0 and rows and all(math.isfinite(r["annual_return"]) for r in rows)


def parse_ok(day: str) -> bool:
    """Whether the shipped calendar has `day` as a session (weekdays() knows no holidays)."""
    from pixiu_cli.market.trading_days import is_trading_day

    return is_trading_day(date.fromisoformat(day))


def test_a_holiday_the_source_lists_as_a_session_keeps_its_bar_a_saturday_never_does(db):
    def row(day):
        return [day, "50.0", "51.0", "49.0", "50.0", "1000000", "50000000.0", "1", "0"]

    fake = baostock_with([row("2025-09-30"), row("2025-10-01"), row("2025-10-04"), row("2025-10-02")])
    listed = [["2025-09-30", "1"], ["2025-10-01", "1"], ["2025-10-04", "1"]]  # 10-02 not listed: the shipped 国庆节
    fake.query_trade_dates = lambda **kw: ResultData(["calendar_date", "is_trading_day"], listed)
    now = datetime(2025, 10, 9, 16, 0, tzinfo=SHANGHAI)
    outcome = synced(db, BaostockSource(timeout=5, module=fake), "600000", "2025-09-30", now)
    assert MarketStore(db).bars("600000").dates == ("2025-09-30", "2025-10-01")
    assert outcome.refused == (
        "未保存：baostock 600000 2025-10-04 日期 2025-10-04 是周六，交易所休市",
        "未保存：baostock 600000 2025-10-02 日期 2025-10-02 是国庆节、中秋节，交易所休市",
    )
