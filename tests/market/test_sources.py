"""Source adapters fed their libraries' native return shapes offline (a ResultData-like
object for baostock, a DataFrame with Chinese columns for akshare), the timeout around a
call that never returns, and a failed sync that keeps what is stored."""

from __future__ import annotations

import threading
import time
from datetime import datetime
from types import SimpleNamespace

import pytest

from pixiu_cli.market.akshare_source import AkshareSource
from pixiu_cli.market.baostock_source import BaostockSource
from pixiu_cli.market.calendar import SHANGHAI
from pixiu_cli.market.data import MarketData
from pixiu_cli.market.handle import Market
from pixiu_cli.market.source_by_name import SOURCE_NAMES, open_source
from pixiu_cli.market.sources import SourceError
from pixiu_cli.market.store import MarketStore, SecurityMaster
from pixiu_cli.market.sync import sync
from tests.helpers import ResultData, akshare_dividend_frame, akshare_frame, akshare_trade_date_frame, load

NOW = datetime(2016, 5, 9, 16, 0, tzinfo=SHANGHAI)


class FakeBaostock:
    def __init__(self):
        self.calls = []

    def login(self):
        return SimpleNamespace(error_code="0", error_msg="success")

    def logout(self):
        return SimpleNamespace(error_code="0")

    def query_history_k_data_plus(self, code, fields, start_date, end_date, frequency, adjustflag):
        self.calls.append(("k", code, start_date, end_date, adjustflag))
        rows = [
            ["2016-05-05", "33.0700", "33.2400", "32.8500", "32.9900", "19547684", "645000000.0000", "1", "0"],
            ["2016-05-06", "20.9700", "21.1400", "20.3500", "20.3500", "38785800", "800000000.0000", "1", "0"],
            ["2016-05-09", "20.3500", "20.3500", "20.3500", "20.3500", "0", "0.0000", "0", "0"],
        ]
        return ResultData(fields.split(","), [r for r in rows if start_date <= r[0] <= end_date])

    def query_adjust_factor(self, code, start_date, end_date):
        return ResultData(
            ["code", "dividOperateDate", "foreAdjustFactor", "backAdjustFactor", "adjustFactor"],
            [[code, "2016-05-06", "0.64", "1.556638", "1.556638"]],
        )

    def query_dividend_data(self, code, year, yearType):
        rows = [[code, "2016-04-22", "2016-05-05", "2016-05-06", "1.2", "1.2", "", "0.5"]] if year == "2016" else []
        return ResultData(
            [
                "code",
                "dividPlanAnnounceDate",
                "dividRegistDate",
                "dividOperateDate",
                "dividCashPsBeforeTax",
                "dividCashPsAfterTax",
                "dividStocksPs",
                "dividReserveToStockPs",
            ],
            rows,
        )

    def query_trade_dates(self, start_date, end_date):
        return ResultData(
            ["calendar_date", "is_trading_day"],
            [["2016-05-06", "1"], ["2016-05-07", "0"], ["2016-05-08", "0"], ["2016-05-09", "1"]],
        )

    def query_stock_basic(self):
        return ResultData(
            ["code", "code_name", "ipoDate", "outDate", "type", "status"],
            [
                ["sz.000333", "美的集团", "2013-09-18", "", "1", "1"],
                ["sh.000001", "上证综合指数", "1991-07-15", "", "2", "1"],
                ["sz.000001", "平安银行", "1991-04-03", "", "1", "1"],
            ],
        )


def test_baostock_native_shapes(db):
    fake = FakeBaostock()
    source = BaostockSource(timeout=5, module=fake)
    outcomes = sync(MarketStore(db), SecurityMaster(db), source, ["000333"], since="2016-05-05", now=NOW)
    assert outcomes[0].error is None and outcomes[0].rows == 2
    assert fake.calls[0] == ("k", "sz.000333", "2016-05-05", "2016-05-09", "3")  # unadjusted, sz. prefix
    series = MarketData(Market(db)).bars("000333", "none")
    assert series.dates == ("2016-05-05", "2016-05-06")  # the suspended day (tradestatus 0) is not a bar
    action = MarketStore(db).actions("000333")[0]
    assert (action.ex_date, action.cash_per_share, action.shares_per_share, action.source) == (
        "2016-05-06",
        1.2,
        0.5,
        "baostock",
    )
    assert action.ratio == pytest.approx(1.556638)  # the source's own factor, used for adjustment
    qfq = MarketData(Market(db)).bars("000333", "qfq")
    assert qfq.close[1] / qfq.close[0] - 1 == pytest.approx(20.35 * 1.556638 / 32.99 - 1)
    master = SecurityMaster(db)
    assert master.get("000001").name == "平安银行"  # the index sharing its digits did not overwrite it
    assert master.get("000333").board == "main" and master.get("000333").list_date == "2013-09-18"
    assert MarketStore(db).trading_days("2016-05-06", "2016-05-09") == ["2016-05-06", "2016-05-09"]


def test_baostock_chatter_on_stdout_is_swallowed(capsys):
    fake = FakeBaostock()
    real_login = fake.login

    def chatty_login():
        print("login success!")
        return real_login()

    fake.login = chatty_login
    BaostockSource(timeout=5, module=fake).daily_bars("000333", "2016-05-05", "2016-05-09")
    print("pixiu output")
    assert capsys.readouterr().out == "pixiu output\n"


def test_baostock_call_that_never_returns_times_out():
    fake = FakeBaostock()
    blocked = threading.Event()
    fake.query_history_k_data_plus = lambda *a, **k: blocked.wait()  # a socket with no timeout
    source = BaostockSource(timeout=0.5, module=fake)
    started = time.monotonic()
    with pytest.raises(SourceError, match=r"baostock 日线查询：0.5 秒内没有响应"):
        source.daily_bars("000333", "2016-05-05", "2016-05-09")
    assert time.monotonic() - started < 3
    blocked.set()


def test_baostock_error_code_is_one_line():
    fake = FakeBaostock()
    fake.query_adjust_factor = lambda **k: ResultData([], [], error_code="10004011", error_msg="网络接收错误")
    with pytest.raises(SourceError, match="baostock 复权因子查询失败：网络接收错误"):
        BaostockSource(timeout=5, module=fake).actions("000333", "2016-01-01", "2016-12-31")


def test_offline_sync_keeps_stored_data_and_marks_it_stale(db):
    load(db, "000333")
    before = MarketStore(db).bars("000333")
    fake = FakeBaostock()
    fake.login = lambda: (_ for _ in ()).throw(OSError("[Errno 101] Network is unreachable"))
    outcomes = sync(
        MarketStore(db),
        SecurityMaster(db),
        BaostockSource(timeout=5, module=fake),
        ["000333", "000002"],
        since=None,
        now=datetime(2026, 11, 30, 16, tzinfo=SHANGHAI),
    )
    assert [o.error for o in outcomes] == ["baostock 登录：OSError [Errno 101] Network is unreachable"] * 2
    assert MarketStore(db).bars("000333") == before
    status = {s.symbol: s for s in MarketData(Market(db)).status(datetime(2026, 11, 30, 16, tzinfo=SHANGHAI))}
    assert status["000333"].stale and "Network is unreachable" in status["000333"].last_error
    assert status["000002"].rows == 0 and status["000002"].stale


def test_a_symbol_is_never_half_written(db):
    load(db, "000333")
    before = (MarketStore(db).bars("000333"), MarketStore(db).actions("000333"))
    fake = FakeBaostock()
    fake.query_dividend_data = lambda **k: ResultData([], [], error_code="1", error_msg="服务器错误")
    outcomes = sync(
        MarketStore(db),
        SecurityMaster(db),
        BaostockSource(timeout=5, module=fake),
        ["000333"],
        since="2016-05-05",
        now=NOW,
    )  # bars arrived, then the actions failed
    assert outcomes[0].error and (MarketStore(db).bars("000333"), MarketStore(db).actions("000333")) == before


class FakeAkshare:
    def __init__(self, sina_fails=False):
        self.sina_fails, self.calls = sina_fails, []

    def stock_zh_a_daily(self, symbol, start_date, end_date, adjust):
        self.calls.append(("sina", symbol, start_date, end_date, adjust))
        if self.sina_fails:
            raise ConnectionError("Sina 403")
        return akshare_frame(
            [
                {
                    "date": "2016-05-06",
                    "open": 20.97,
                    "high": 21.14,
                    "low": 20.35,
                    "close": 20.35,
                    "volume": 38785800.0,
                    "amount": 8.0e8,
                    "outstanding_share": 1.0,
                    "turnover": 0.01,
                }
            ],
            "date",
        )

    def stock_zh_a_hist(self, symbol, period, start_date, end_date, adjust):
        self.calls.append(("eastmoney", symbol, start_date, end_date, adjust))
        return akshare_frame(
            [
                {
                    "日期": "2016-05-05",
                    "股票代码": "000333",
                    "开盘": 33.07,
                    "收盘": 32.99,
                    "最高": 33.24,
                    "最低": 32.85,
                    "成交量": 195476,
                    "成交额": 6.45e8,
                    "振幅": 1.2,
                    "涨跌幅": -0.3,
                    "涨跌额": -0.1,
                    "换手率": 0.5,
                },
                {
                    "日期": "2016-05-06",
                    "股票代码": "000333",
                    "开盘": 20.97,
                    "收盘": 20.35,
                    "最高": 21.14,
                    "最低": 20.35,
                    "成交量": 387858,
                    "成交额": 8.0e8,
                    "振幅": 2.4,
                    "涨跌幅": -38.3,
                    "涨跌额": -12.6,
                    "换手率": 0.9,
                },
                {
                    "日期": "--",
                    "股票代码": "000333",
                    "开盘": None,
                    "收盘": None,
                    "成交量": None,
                },  # NaT after conversion
            ],
            "日期",
        )

    def tool_trade_date_hist_sina(self):
        return akshare_trade_date_frame(["2016-05-06", "2016-05-09"])

    def stock_history_dividend_detail(self, symbol, indicator):
        return akshare_dividend_frame(
            [
                ["2016-04-22", "0", "5", "12", "实施", "2016-05-06", "2016-05-05", "2016-05-06"],
                ["2025-03-28", "0", "0", "35", "预案", "--", "--", "--"],
            ]
        )


def test_akshare_prefers_sina_and_reads_eastmoney_chinese_columns_in_lots(db):
    fake = FakeAkshare()
    source = AkshareSource(timeout=60, module=fake)
    bars = source.daily_bars("000333", "2016-05-05", "2016-05-09")
    assert fake.calls == [("sina", "sz000333", "20160505", "20160509", "")]  # unadjusted, not Eastmoney
    assert bars[0].date == "2016-05-06" and bars[0].volume == 38785800

    fake = FakeAkshare(sina_fails=True)
    fake.stock_history_dividend_detail = lambda symbol, indicator: akshare_dividend_frame(
        [["2025-03-28", "0", "0", "35", "预案", "--", "--", "--"]]
    )
    missed = sync(
        MarketStore(db),
        SecurityMaster(db),
        AkshareSource(timeout=60, module=fake),
        ["000333"],
        since="2016-05-05",
        now=NOW,
    )  # the dividend table lacks the event: the gap is named
    assert [g.date for g in missed[0].suspects] == ["2016-05-06"]
    fake = FakeAkshare(sina_fails=True)
    outcomes = sync(
        MarketStore(db),
        SecurityMaster(db),
        AkshareSource(timeout=60, module=fake),
        ["000333"],
        since="2016-05-05",
        now=NOW,
    )
    assert outcomes[0].error is None and [c[0] for c in fake.calls] == ["sina", "eastmoney"]
    assert outcomes[0].suspects == ()
    stored = MarketStore(db).bars("000333").bars()
    assert [b.volume for b in stored] == [19547600, 38785800]  # 手 × 100
    action = MarketStore(db).actions("000333")[0]  # per 10 shares → per share; the 预案 row is skipped
    assert (action.ex_date, action.cash_per_share, action.shares_per_share) == ("2016-05-06", 1.2, 0.5)
    qfq = MarketData(Market(db)).bars("000333", "qfq")
    assert qfq.close[1] / qfq.close[0] - 1 == pytest.approx(20.35 / ((32.99 - 1.2) / 1.5) - 1)
    assert MarketStore(db).trading_days("2016-05-01", "2016-05-31") == ["2016-05-06", "2016-05-09"]


def test_akshare_both_endpoints_failing_is_one_line():
    class Down(FakeAkshare):
        def stock_zh_a_hist(self, **kw):
            raise TimeoutError("read timed out")

    with pytest.raises(SourceError) as info:
        AkshareSource(timeout=60, module=Down(sina_fails=True)).daily_bars("000333", "2016-05-05", "2016-05-09")
    assert "akshare 新浪日线" in str(info.value) and "akshare 东方财富日线" in str(info.value)
    assert "\n" not in str(info.value)


def test_missing_library_is_named_with_its_extra(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_baostock(name, *args, **kwargs):
        if name == "baostock":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_baostock)
    with pytest.raises(SourceError, match=r"pip install 'pixiu-cli\[baostock\]'"):
        BaostockSource().daily_bars("000333", "2016-05-05", "2016-05-09")


def test_a_source_is_picked_by_name_and_an_unknown_name_is_one_line():
    picked = {name: open_source(name, timeout=3.0) for name in SOURCE_NAMES}
    assert isinstance(picked["baostock"], BaostockSource) and isinstance(picked["akshare"], AkshareSource)
    assert [source.name for source in picked.values()] == list(SOURCE_NAMES)
    with pytest.raises(SourceError) as info:
        open_source("tushare")
    assert "tushare" in str(info.value) and "\n" not in str(info.value)


def test_the_sources_import_their_interface_and_it_imports_none_of_them():
    import grimp

    graph = grimp.build_graph("pixiu_cli")
    interface = "pixiu_cli.market.sources"
    for module in (
        "pixiu_cli.market.akshare_source",
        "pixiu_cli.market.baostock_source",
        "pixiu_cli.market.source_by_name",
    ):
        assert graph.direct_import_exists(importer=module, imported=interface)
        assert not graph.chain_exists(importer=interface, imported=module)


@pytest.mark.live
def test_live_baostock_fetches_real_bars(db):
    outcomes = sync(
        MarketStore(db),
        SecurityMaster(db),
        BaostockSource(timeout=30),
        ["000333"],
        since="2016-05-01",
        now=datetime.now(SHANGHAI),
    )
    assert outcomes[0].error is None
    assert "2016-05-06" in MarketStore(db).bars("000333").dates


def test_sync_names_calendar_days_the_source_disagrees_on(db):
    fake = FakeBaostock()
    fake.query_trade_dates = lambda start_date, end_date: ResultData(
        ["calendar_date", "is_trading_day"],
        [["2026-09-30", "1"], ["2026-10-01", "0"], ["2026-10-05", "1"], ["2026-10-08", "1"], ["2026-10-09", "1"]],
    )
    notes: list[str] = []
    sync(
        MarketStore(db),
        SecurityMaster(db),
        BaostockSource(timeout=5, module=fake),
        [],
        since="2026-09-30",
        now=datetime(2026, 10, 9, 16, tzinfo=SHANGHAI),
        on_calendar=notes.extend,
    )
    assert notes == ["2026-10-05 来源为交易日，内置日历为休市"]


def test_csv_files_are_a_price_source_too(db):
    from tests.helpers import MARKET_FIXTURES as FIXTURES
    from tests.helpers import CsvSource

    source = CsvSource("000333", FIXTURES / "000333.csv", FIXTURES / "000333_actions.csv")
    outcomes = sync(
        MarketStore(db),
        SecurityMaster(db),
        source,
        ["000333"],
        since="2016-05-01",
        now=datetime(2025, 6, 3, 16, tzinfo=SHANGHAI),
    )
    assert outcomes[0].first == "2016-05-03" and outcomes[0].last == "2025-05-30"
    qfq = MarketData(Market(db)).bars("000333", "qfq", "2016-05-05", "2016-05-06")
    assert qfq.close[1] / qfq.close[0] - 1 == pytest.approx(20.35 / ((32.99 - 1.2) / 1.5) - 1)
    # Friday 2025-05-30 → Tuesday 2025-06-03 after the close: Monday was 端午节, so one session
    assert MarketData(Market(db)).status(datetime(2025, 6, 3, 16, tzinfo=SHANGHAI))[0].stale_days == 1


def test_incremental_sync_checks_the_first_new_bar_against_the_stored_close(db, tmp_path):
    from tests.helpers import truncated_history as _truncated

    load(db, "000333", path=_truncated(tmp_path, "000333", "2016-05-05"), actions=False)
    fake = FakeBaostock()
    fake.query_dividend_data = lambda **k: ResultData(["dividOperateDate"], [])
    fake.query_adjust_factor = lambda **k: ResultData(["dividOperateDate", "backAdjustFactor"], [])
    outcomes = sync(
        MarketStore(db), SecurityMaster(db), BaostockSource(timeout=5, module=fake), ["000333"], since=None, now=NOW
    )  # fetches from 2016-05-06 only
    assert outcomes[0].first == "2016-05-06"
    assert [(g.prev_date, g.date) for g in outcomes[0].suspects] == [("2016-05-05", "2016-05-06")]


def test_akshare_plan_rows_hold_nat_and_never_crash_the_sync(db):
    frame = FakeAkshare().stock_history_dividend_detail("000333", "分红")
    assert str(frame.to_dict("records")[1]["除权除息日"]) == "NaT"  # the shape the adapter must read
    source = AkshareSource(timeout=60, module=FakeAkshare())
    actions = source.actions("000333", "2015-01-01", "2026-12-31")
    assert [(a.ex_date, a.cash_per_share, a.shares_per_share) for a in actions] == [("2016-05-06", 1.2, 0.5)]
    outcomes = sync(MarketStore(db), SecurityMaster(db), source, ["000333"], since="2016-05-05", now=NOW)
    assert outcomes[0].error is None and outcomes[0].rows == 1


def test_akshare_trade_dates_are_read_from_their_date_column():
    days = AkshareSource(timeout=60, module=FakeAkshare()).trading_days("2016-05-01", "2016-05-31")
    assert days == ["2016-05-06", "2016-05-09"]


def test_bse_920_codes_are_beijing_not_shanghai():
    from pixiu_cli.market.securities import board_for
    from pixiu_cli.market.sources import exchange_code

    assert board_for("920002") == "bse" and exchange_code("920002") == "bj"
    assert exchange_code("900901") == "sh"  # a Shanghai B share keeps its prefix
    assert (exchange_code("600519"), exchange_code("000333"), exchange_code("430047")) == ("sh", "sz", "bj")
    fake = FakeBaostock()
    BaostockSource(timeout=5, module=fake).daily_bars("920002", "2016-05-05", "2016-05-09")
    assert fake.calls[0][1] == "bj.920002"


PAGE = 2000  # baostock's BAOSTOCK_PER_PAGE_COUNT


class PagedResultData:
    """baostock's ResultData paging as its next() does it: a full page asks the server for the
    next one; send_msg swallows a socket error and returns None, and next() then says False."""

    def __init__(self, fields, rows, lost_page=None):
        self.fields, self._rows, self._lost = fields, rows, lost_page
        self.error_code, self.error_msg = "0", "success"
        self.cur_page_num, self.per_page_count, self.cur_row_num = "1", str(PAGE), 0
        self.data = rows[:PAGE]

    def _send_msg(self, page):
        if page == self._lost:
            return None  # "接收数据异常，请稍后再试。" printed, nothing raised
        return self._rows[(page - 1) * PAGE : page * PAGE]

    def next(self):
        if len(self.data) == 0:
            return False
        if self.cur_row_num < len(self.data):
            return True
        if len(self.data) < PAGE:
            return False
        page = int(self.cur_page_num) + 1
        received = self._send_msg(page)
        if received is None:
            return False
        self.cur_page_num, self.data, self.cur_row_num = str(page), received, 0
        return len(self.data) > 0

    def get_row_data(self):
        row = self.data[self.cur_row_num]
        self.cur_row_num += 1
        return row


def _long_history(count):
    from datetime import date, timedelta

    day, rows = date(2010, 1, 4), []
    while len(rows) < count:
        if day.weekday() < 5:
            rows.append([day.isoformat(), "10.0", "10.2", "9.9", "10.1", "1000", "10100.0", "1", "0"])
        day += timedelta(days=1)
    return rows


@pytest.mark.parametrize(("count", "lost_page"), [(2430, None), (PAGE, None), (PAGE * 2, None)])
def test_baostock_reads_every_page(count, lost_page):
    fake = FakeBaostock()
    fake.query_history_k_data_plus = lambda code, fields, **kw: PagedResultData(
        fields.split(","), _long_history(count), lost_page
    )
    bars = BaostockSource(timeout=5, module=fake).daily_bars("000333", "2010-01-01", "2020-12-31")
    assert len(bars) == count


def test_baostock_lost_page_is_named_not_a_short_history(db):
    fake = FakeBaostock()
    fake.query_history_k_data_plus = lambda code, fields, **kw: PagedResultData(
        fields.split(","), _long_history(2430), lost_page=2
    )
    source = BaostockSource(timeout=5, module=fake)
    with pytest.raises(SourceError) as info:
        source.daily_bars("000333", "2010-01-01", "2020-12-31")
    assert "第 1 页之后的数据没有取到（已取 2000 行）" in str(info.value) and "\n" not in str(info.value)
    outcomes = sync(MarketStore(db), SecurityMaster(db), source, ["000333"], since="2010-01-01", now=NOW)
    assert "结果不完整" in outcomes[0].error
    assert MarketStore(db).bars("000333").bars() == []  # nothing half-written


def test_a_sync_whose_source_knows_next_year_extends_the_calendar(db, tmp_path, monkeypatch):
    from pixiu_cli.market.trading_days import CalendarEnd, calendar_end, is_trading_day, reload_calendar

    monkeypatch.setenv("PIXIU_HOME", str(tmp_path))
    reload_calendar()
    asked = []

    class NextYear(FakeBaostock):
        def query_trade_dates(self, start_date, end_date):
            asked.append((start_date, end_date))
            rows = [["2026-12-31", "1"], ["2027-01-01", "0"], ["2027-01-04", "1"], ["2027-01-05", "1"]]
            return ResultData(["calendar_date", "is_trading_day"], rows)

    now = datetime(2026, 12, 1, 16, 0, tzinfo=SHANGHAI)
    try:
        with pytest.raises(CalendarEnd):
            is_trading_day(datetime(2027, 1, 4).date())
        sync(MarketStore(db), SecurityMaster(db), BaostockSource(timeout=5, module=NextYear()), [], since=None, now=now)
        assert asked and asked[0][1] > "2027-12-01"  # the next year is asked for, not only up to today
        assert calendar_end().isoformat() == "2027-01-05"
        assert is_trading_day(datetime(2027, 1, 4).date()) and not is_trading_day(datetime(2027, 1, 1).date())
    finally:
        reload_calendar()
