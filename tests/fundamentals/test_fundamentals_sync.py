"""Fundamentals through a stand-in with baostock's own shapes (ResultData rows of text, the
fields of query_history_k_data_plus, query_profit_data, query_growth_data, query_balance_data,
query_cash_flow_data, query_dividend_data, query_forecast_report): `pixiu data sync
--fundamentals`, `pixiu fundamentals --json` with every figure's period and source, the
context's 基本面 part with the percentile computed locally, and what a daily sync refreshes."""

from __future__ import annotations

import json
import sys
from datetime import date, timedelta
from decimal import Decimal

import pytest

from pixiu_cli.kernel.store.database import open_database
from pixiu_cli.market.handle import Market
from tests.helpers import MARKET_FIXTURES, ResultData, StandIn, clean_env, pixiu_in_process

NOW = "2026-11-24T16:00:00"  # a Tuesday, after the close
CODE = "sh.600519"


def trading_weekdays(first: str, last: str) -> list[str]:
    day, out = date.fromisoformat(first), []
    while day.isoformat() <= last:
        if day.weekday() < 5:
            out.append(day.isoformat())
        day += timedelta(days=1)
    return out


DAYS = trading_weekdays("2021-11-01", "2026-11-23")
SUSPENDED = "2024-06-03"


def pe_of(index: int) -> str:
    return f"{20 + index % 10}.000000"  # 20 … 29, each as often


def pb_of(index: int) -> str:
    return f"{8 + (index % 4) * 0.5:.6f}"  # 8.0, 8.5, 9.0, 9.5


# The last session: PE 22.5, PB 8.2 (the stand-in serves these for NOW's day).
LAST = ["2026-11-24", "1450.0000", "22.500000", "8.200000", "11.050000", "30.100000", "1"]


def k_rows() -> list[list[str]]:
    rows = [
        [d, "1500.0000", pe_of(i), pb_of(i), "11.000000", "30.000000", "0" if d == SUSPENDED else "1"]
        for i, d in enumerate(DAYS)
    ]
    return [*rows, LAST]


PROFIT_FIELDS = [
    "code",
    "pubDate",
    "statDate",
    "roeAvg",
    "npMargin",
    "gpMargin",
    "netProfit",
    "epsTTM",
    "MBRevenue",
    "totalShare",
    "liqaShare",
]
PROFIT = {
    (2026, 3): [
        "2026-10-25",
        "2026-09-30",
        "0.288000",
        "0.511100",
        "0.914500",
        "66899448230.640000",
        "68.64",
        "130903889210.220000",
        "1256197800.00",
        "1256197800.00",
    ],
    (2026, 2): [
        "2026-08-09",
        "2026-06-30",
        "0.201000",
        "0.520000",
        "0.915000",
        "45000000000.000000",
        "67.10",
        "86000000000.000000",
        "1256197800.00",
        "1256197800.00",
    ],
    (2025, 3): [
        "2025-10-27",
        "2025-09-30",
        "0.280000",
        "0.505000",
        "0.913000",
        "62000000000.000000",
        "64.00",
        "120903889210.220000",
        "1256197800.00",
        "1256197800.00",
    ],
}
GROWTH = {(2026, 3): ["2026-10-25", "2026-09-30", "0.100000", "0.080000", "0.068500", "0.070000", "0.066000"]}
BALANCE = {
    (2026, 3): ["2026-10-25", "2026-09-30", "4.100000", "3.300000", "2.000000", "0.050000", "0.190300", "1.234900"]
}
CASH = {
    (2026, 3): ["2026-10-25", "2026-09-30", "0.800000", "0.200000", "0.790000", "", "0.400000", "0.572300", "0.300000"]
}
DIVIDEND_FIELDS = [
    "code",
    "dividPreNoticeDate",
    "dividAgmPumDate",
    "dividPlanAnnounceDate",
    "dividPlanDate",
    "dividRegistDate",
    "dividOperateDate",
    "dividPayDate",
    "dividStockMarketDate",
    "dividCashPsBeforeTax",
    "dividCashPsAfterTax",
    "dividStocksPs",
    "dividCashStock",
    "dividReserveToStockPs",
]
DIVIDENDS = {
    "2025": [
        [
            "",
            "2025-05-16",
            "2025-04-02",
            "2025-06-20",
            "2025-06-25",
            "2025-06-26",
            "2025-06-26",
            "",
            "27.673000",
            "27.673000",
            "",
            "10派276.73元（含税）",
            "",
        ],
        [
            "",
            "2025-11-20",
            "2025-10-29",
            "2025-12-12",
            "2025-12-18",
            "2025-12-19",
            "2025-12-19",
            "",
            "23.957000",
            "23.957000",
            "",
            "10派239.57元（含税）",
            "",
        ],
    ],
    "2026": [
        [
            "",
            "2026-05-20",
            "2026-04-03",
            "2026-06-19",
            "2026-06-25",
            "2026-06-26",
            "2026-06-26",
            "",
            "28.000000",
            "28.000000",
            "",
            "10派280.00元（含税）",
            "",
        ],
        ["", "", "2026-10-28", "", "", "", "", "", "24.000000", "24.000000", "", "10派240.00元（含税）", ""],
    ],
}
FORECAST_FIELDS = [
    "code",
    "profitForcastExpPubDate",
    "profitForcastExpStatDate",
    "profitForcastType",
    "profitForcastAbstract",
    "profitForcastChgPctUp",
    "profitForcastChgPctDwn",
]
FORECAST = [["2026-11-20", "2026-12-31", "预增", "预计2026年度归母净利润同比增长5%-10%", "10.00", "5.00"]]


class FakeBaostock:
    """baostock's module surface: login, the queries the fundamentals sync makes, logout."""

    def __init__(self, down: bool = False):
        self.calls: list[tuple] = []
        self.down = down

    def login(self):
        return ResultData([], [])

    def logout(self):
        return ResultData([], [])

    def query_history_k_data_plus(self, code, fields, start_date, end_date, frequency, adjustflag):
        names = fields.split(",")
        if "peTTM" not in names:  # a bar sync's query: no new bars in this stand-in
            self.calls.append(("bars", code))
            return ResultData(names, [])
        self.calls.append(("k", code, start_date, end_date))
        if self.down:
            raise ConnectionResetError(104, "Connection reset by peer")
        assert names == ["date", "close", "peTTM", "pbMRQ", "psTTM", "pcfNcfTTM", "tradestatus"]
        return ResultData(names, [r for r in k_rows() if start_date <= r[0] <= end_date])

    def query_adjust_factor(self, code, start_date, end_date):
        return ResultData(["code", "dividOperateDate", "foreAdjustFactor", "backAdjustFactor", "adjustFactor"], [])

    def query_trade_dates(self, start_date, end_date):
        return ResultData(["calendar_date", "is_trading_day"], [])

    def query_stock_basic(self):
        return ResultData(["code", "code_name", "ipoDate", "outDate", "type", "status"], [])

    def _quarter(self, kind, table, fields, code, year, quarter):
        self.calls.append((kind, code, int(year), int(quarter)))
        row = table.get((int(year), int(quarter)))
        return ResultData(fields, [[code, *row]] if row else [])

    def query_profit_data(self, code, year, quarter):
        return self._quarter("profit", PROFIT, PROFIT_FIELDS, code, year, quarter)

    def query_growth_data(self, code, year, quarter):
        fields = ["code", "pubDate", "statDate", "YOYEquity", "YOYAsset", "YOYNI", "YOYEPSBasic", "YOYPNI"]
        return self._quarter("growth", GROWTH, fields, code, year, quarter)

    def query_balance_data(self, code, year, quarter):
        fields = [
            "code",
            "pubDate",
            "statDate",
            "currentRatio",
            "quickRatio",
            "cashRatio",
            "YOYLiability",
            "liabilityToAsset",
            "assetToEquity",
        ]
        return self._quarter("balance", BALANCE, fields, code, year, quarter)

    def query_cash_flow_data(self, code, year, quarter):
        fields = [
            "code",
            "pubDate",
            "statDate",
            "CAToAsset",
            "NCAToAsset",
            "tangibleAssetToAsset",
            "ebitToInterest",
            "CFOToOR",
            "CFOToNP",
            "CFOToGr",
        ]
        return self._quarter("cash", CASH, fields, code, year, quarter)

    def query_dividend_data(self, code, year, yearType):
        if yearType == "operate":  # a bar sync's actions: by the ex-date's year
            every = [r for rows in DIVIDENDS.values() for r in rows]
            return ResultData(DIVIDEND_FIELDS, [[code, *r] for r in every if r[5][:4] == year])
        assert yearType == "report"
        self.calls.append(("dividend", code, year))
        return ResultData(DIVIDEND_FIELDS, [[code, *r] for r in DIVIDENDS.get(year, [])])

    def query_forecast_report(self, code, start_date, end_date):
        self.calls.append(("forecast", code))
        return ResultData(FORECAST_FIELDS, [[code, *r] for r in FORECAST if start_date <= r[0] <= end_date])

    def query_performance_express_report(self, code, start_date, end_date):
        self.calls.append(("express", code))
        fields = ["code", "performanceExpPubDate", "performanceExpStatDate", "performanceExpUpdateDate"]
        return ResultData(fields, [])


@pytest.fixture
def cli(monkeypatch, home) -> StandIn:
    return StandIn(monkeypatch, "baostock", home, NOW)


@pytest.fixture
def home(tmp_path):
    home = tmp_path / "home"
    assert pixiu_in_process(clean_env(home), "import", "tests/fixtures/small_portfolio.json", text=True).returncode == 0
    return home


def window_rank(values: list[tuple[str, float]], current: float, last_day: str) -> tuple[int, int]:
    """By hand: the days of the five years up to the last one (1,826 days back) whose value is at
    or below the current one, and how many days there are."""
    start = (date.fromisoformat(last_day) - timedelta(days=1826)).isoformat()
    window = [v for d, v in values if d >= start]
    return sum(1 for v in window if v <= current), len(window)


def stored_history(column: int) -> list[tuple[str, float]]:
    return [(r[0], float(r[column])) for r in k_rows() if r[6] == "1" and r[0] >= "2021-11-17"]


def test_sync_then_json_shows_every_figure_with_its_period_and_source(monkeypatch, home, cli):
    fake = FakeBaostock()
    out = cli.ok(fake, "data", "sync", "--fundamentals", "600519")
    # the first sync asks for five years and a week: from 2026-11-24 − 1,833 days = 2021-11-17
    asked = [d for d in DAYS if d >= "2021-11-17"]
    assert fake.calls[0] == ("k", CODE, "2021-11-17", "2026-11-24")
    assert (
        f"600519 基本面：估值新增 {len(asked) - 1 + 1} 天，报告期 3 个（最新 2026 三季报），分红 4 条，业绩预告/快报 1 条"
        in out
    )
    record = json.loads(cli.ok(fake, "fundamentals", "贵州茅台", "--json"))  # a name, resolved
    assert record["symbol"] == "600519" and record["name"] == "贵州茅台"
    v = record["valuation"]
    assert v["pe_ttm"]["value"] == 22.5 and v["pe_ttm"]["date"] == "2026-11-24" and v["pe_ttm"]["source"] == "baostock"
    below, days = window_rank(stored_history(2), 22.5, "2026-11-24")
    assert v["pe_ttm"]["percentile"]["days"] == days and v["pe_ttm"]["percentile"]["rank"] == round(below / days, 4)
    assert v["pe_ttm"]["percentile"]["window"] == "近五年"
    below, days = window_rank(stored_history(3), 8.2, "2026-11-24")
    assert v["pb_mrq"]["percentile"]["rank"] == round(below / days, 4)
    # market value: 1450.00 × 1,256,197,800 shares = 1,821,486,810,000 yuan
    assert v["total_mv"]["value"] == 1821486810000.0 and v["total_mv"]["computed"].startswith("close × total_shares")
    # the year to 2026-11-24: 23.957 (2025-12-19) + 28.000 (2026-06-26) = 51.957 a share; / 1450.00 = 3.5832%
    assert v["dividend_yield"]["cash_per_share_12m"] == 51.957 and v["dividend_yield"]["payments_12m"] == 2
    assert v["dividend_yield"]["value"] == round(51.957 / 1450, 6)
    report = record["report"]
    assert (report["period"], report["name"], report["published"]) == ("2026-09-30", "2026 三季报", "2026-10-25")
    assert report["revenue"] == {
        "value": 130903889210.22,
        "period": "2026-09-30",
        "published": "2026-10-25",
        "source": "baostock",
    }
    # revenue growth, computed: 130,903,889,210.22 / 120,903,889,210.22 − 1 = 0.0827103…
    assert round(report["revenue_yoy"]["value"], 6) == round(130903889210.22 / 120903889210.22 - 1, 6)
    assert report["net_profit_yoy"]["value"] == 0.0685 and report["roe"]["value"] == 0.288
    assert report["debt_ratio"]["value"] == 0.1903 and report["cfo_to_profit"]["value"] == 0.5723
    assert [r["period"] for r in record["reports"]] == ["2026-09-30", "2026-06-30", "2025-09-30"]
    paid = [d for d in record["dividends"] if d["ex_date"]]
    assert [d["ex_date"] for d in paid] == ["2026-06-26", "2025-12-19", "2025-06-26"]
    plan = next(d for d in record["dividends"] if not d["ex_date"])
    assert plan["announced"] == "2026-10-28" and plan["cash_per_share"] == 24.0
    assert record["notices"][0]["kind"] == "forecast" and record["notices"][0]["change_low"] == 0.05
    assert record["next_report"] == {
        "period": "2026-12-31",
        "name": "2026 年报",
        "deadline": "2027-04-30",
        "overdue": False,
    }


def test_the_suspended_day_is_no_valuation_day(monkeypatch, home, cli):
    cli.ok(FakeBaostock(), "data", "sync", "--fundamentals", "600519")
    db = open_database(home / "pixiu.db")
    try:
        days = {r[0] for r in db.execute("select date from valuation_days where symbol = '600519'").fetchall()}
    finally:
        db.close()
    asked = [d for d in DAYS if d >= "2021-11-17"]
    assert (
        SUSPENDED not in days and "2026-11-24" in days and len(days) == len(asked)
    )  # every weekday but one, plus the last


def test_context_of_a_valuation_question_carries_the_part_and_its_percentile(monkeypatch, home, cli):
    fake = FakeBaostock()
    cli.ok(fake, "data", "sync", "--fundamentals", "600519")
    block_ = cli.block(fake, "茅台估值贵不贵")
    below, days = window_rank(stored_history(2), 22.5, "2026-11-24")
    share = (Decimal(below) / Decimal(days) * 100).quantize(Decimal("1"))
    assert (
        f"基本面·估值（2026-11-24 收盘，来源 baostock）：PE(TTM) 22.50（近五年分位 {share}%（{days:,} 个交易日））"
        in block_
    )
    assert "股息率 3.58%（近 12 个月每股派现 51.96 元 ÷ 收盘 1,450.00）" in block_  # 51.957 / 1450 = 3.583%
    assert "总市值 18,214.87 亿元" in block_  # 1,821,486,810,000 / 1e8
    assert (
        "基本面·财报 2026 三季报（报告期 2026-09-30，2026-10-25 披露，来源 baostock）：营收 1,309.04 亿元（同比 +8.27%）"
        in block_
    )
    assert "净利润 668.99 亿元（同比 +6.85%）" in block_  # 66,899,448,230.64 / 1e8 = 668.994…
    assert "待实施 「10派240.00元（含税）」（2026-10-28 公告）" in block_
    assert "下一份 2026 年报，法定披露截止 2027-04-30" in block_
    assert "## 市场概况" not in block_


def test_a_question_about_the_holdings_pulls_neither(monkeypatch, home, cli):
    fake = FakeBaostock()
    cli.ok(fake, "data", "sync", "--fundamentals", "600519")
    holdings = cli.block(fake, "我的持仓整体怎么样")
    assert "持仓画像概览" in holdings and "基本面" not in holdings and "市场概况" not in holdings
    plain = cli.block(fake, "茅台最近走势怎么样")
    assert "## 标的上下文：600519" in plain and "基本面" not in plain


def test_the_default_sync_refreshes_kept_fundamentals_and_only_those(monkeypatch, home, cli):
    fake = FakeBaostock()
    out = cli.ok(fake, "data", "sync")
    assert "基本面" not in out and not [c for c in fake.calls if c[0] != "bars"]  # none kept: none asked for
    cli.ok(FakeBaostock(), "data", "sync", "--fundamentals", "600519")
    LAST_NEXT = ["2026-11-25", "1460.0000", "22.700000", "8.250000", "11.100000", "30.200000", "1"]
    monkeypatch.setattr(sys.modules[__name__], "LAST", LAST_NEXT)  # the stand-in serves the next day too
    later = FakeBaostock()
    out = cli.ok(later, "data", "sync", now="2026-11-25T16:00:00")
    assert "600519 基本面：估值新增 1 天（财报未到更新时间）" in out
    assert {c[0] for c in later.calls} == {"bars", "k"} and ("k", CODE, "2026-11-25", "2026-11-25") in later.calls


def test_a_daily_sync_refreshes_the_kept_valuation_and_reports_only_when_due(monkeypatch, home, cli):
    fake = FakeBaostock()
    cli.ok(fake, "data", "sync", "--fundamentals", "600519")
    # The next day: only the new valuation day is asked for; the reports are not due (the
    # year's quarter ends on 12-31) and the bars of the default sync come from the same source.
    later = FakeBaostock()
    monkeypatch.setitem(sys.modules, "baostock", later)
    from pixiu_cli.market.fundamentals.service import refresh_due

    db = open_database(home / "pixiu.db")
    try:
        from datetime import datetime

        from pixiu_cli.market.calendar import SHANGHAI

        done = refresh_due(Market(db), "baostock", 5, datetime(2026, 11, 25, 16, 0, tzinfo=SHANGHAI), module=later)
    finally:
        db.close()
    assert [(o.symbol, o.reports_fetched, o.error) for o in done.outcomes] == [("600519", False, None)]
    kinds = {c[0] for c in later.calls}
    assert kinds == {"k"} and later.calls[0][2] == "2026-11-25"  # from the day after the last stored one


def test_a_source_that_fails_keeps_what_is_stored_and_says_so_in_one_line(monkeypatch, home, cli):
    cli.ok(FakeBaostock(), "data", "sync", "--fundamentals", "600519")
    down = cli.run(FakeBaostock(down=True), "data", "sync", "--fundamentals", "600519", now="2026-11-25T16:00:00")
    assert down.returncode == 1
    assert "基本面（baostock）同步失败（1 只）：baostock 估值查询：ConnectionResetError" in down.stderr
    assert "已保留已存数据" in down.stderr and len(down.stderr.strip().splitlines()) == 1
    record = json.loads(cli.ok(FakeBaostock(), "fundamentals", "600519", "--json", now="2026-11-25T16:00:00"))
    assert record["valuation"]["pe_ttm"]["value"] == 22.5 and "ConnectionResetError" in record["last_error"]


def test_nothing_stored_is_said_in_the_part_and_by_the_command(monkeypatch, home, cli):
    fake = FakeBaostock()
    shown_block = cli.block(fake, "海康的市盈率高吗")
    assert "基本面：数据库中没有 002415 的估值和财报（pixiu data sync --fundamentals 002415 获取）" in shown_block
    shown = cli.ok(fake, "fundamentals", "002415")
    assert "没有 002415 的基本面数据：pixiu data sync --fundamentals 002415" in shown
    assert fake.calls == []  # reading never fetches


def test_a_stored_value_that_is_no_number_shows_as_missing_and_fails_nothing(monkeypatch, home, cli):
    cli.ok(FakeBaostock(), "data", "sync", "--fundamentals", "600519")
    db = open_database(home / "pixiu.db")
    try:
        db.execute("update valuation_days set pe_ttm = 'abc', pb_mrq = X'00ff' where date = '2026-11-24'")
        db.execute("update financial_reports set revenue = 'Infinity' where period = '2026-09-30'")
    finally:
        db.close()
    record = json.loads(cli.ok(FakeBaostock(), "fundamentals", "600519", "--json"))
    assert record["valuation"]["pe_ttm"] == {
        "value": None,
        "date": "2026-11-24",
        "source": "baostock",
        "percentile": None,
    }
    assert record["report"]["revenue"]["value"] is None
    text = cli.block(FakeBaostock(), "茅台市盈率多少")
    assert "PE(TTM) —，PB(MRQ) —" in text and "营收 —（同比" in text


@pytest.mark.parametrize(
    "args, said",
    [
        (("--fundamentals", "--market"), "--securities、--fundamentals、--market 一次只能用一个"),
        (("--fundamentals", "--since", "2026-01-01"), "--fundamentals 不用 --since"),
        (("--market", "600519"), "--market 只更新全市场快照：不要同时给出股票代码或 --since"),
        (("--fundamentals", "不存在的股票"), "找不到股票 '不存在的股票'"),
    ],
)
def test_bad_sync_flags_are_one_line_and_fetch_nothing(monkeypatch, home, cli, args, said):
    fake = FakeBaostock()
    done = cli.run(fake, "data", "sync", *args)
    assert done.returncode == 1 and said in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert fake.calls == []


# 送转: the yield per share of today, the market value of today's share count ------------------
def real_close(code: str, day: str) -> str:
    """The unadjusted close of tests/fixtures/market/<code>.csv on `day` (real bars)."""
    rows = (MARKET_FIXTURES / f"{code}.csv").read_text().splitlines()
    return next(r.split(",")[4] for r in rows if r.startswith(day))


class ShareChangeBaostock(FakeBaostock):
    """One stock, one valuation day, one report and one 送转 plan with its cash, in baostock's
    shapes. The plan and the day are real (tests/fixtures/market/README.md); the report's
    share counts stand in for the company's."""

    def __init__(self, code: str, day: str, plans: list[list[str]], report: list[str]):
        super().__init__()
        self.code, self.day, self.plans, self.report = code, day, plans, report

    def query_history_k_data_plus(self, code, fields, start_date, end_date, frequency, adjustflag):
        names = fields.split(",")
        if "peTTM" not in names:
            return ResultData(names, [])
        row = [self.day, real_close(self.code, self.day), "15.000000", "3.000000", "1.000000", "9.000000", "1"]
        return ResultData(names, [row] if start_date <= self.day <= end_date else [])

    def query_profit_data(self, code, year, quarter):
        found = self.report[1] == f"{year}-{('03-31', '06-30', '09-30', '12-31')[int(quarter) - 1]}"
        return ResultData(PROFIT_FIELDS, [[code, *self.report]] if found else [])

    def query_dividend_data(self, code, year, yearType):
        return ResultData(DIVIDEND_FIELDS, [[code, *plan] for plan in self.plans if plan[5][:4] == year])


def synced(
    cli, code: str, day: str, plans: list[list[str]], shares: list[str]
) -> tuple[ShareChangeBaostock, str, dict]:
    """The stand-in for `code` on `day` with the plans and a report of period 2016-03-31 whose
    share counts are `shares`, synced; `pixiu fundamentals --json` after it."""
    report = ["2016-04-29", "2016-03-31", "0.08", "0.1", "0.25", "4900000000.00", "2.1", "38000000000.00", *shares]
    fake, now = ShareChangeBaostock(code, day, plans, report), f"{day}T16:00:00"
    cli.ok(fake, "data", "sync", "--fundamentals", code, now=now)
    return fake, now, json.loads(cli.ok(fake, "fundamentals", code, "--json", now=now))


def dividend_row(ex_date: str, cash: str, bonus: str, transfer: str, words: str) -> list[str]:
    return ["", "", "", "", ex_date, ex_date, ex_date, "", cash, cash, bonus, words, transfer]


def test_the_yield_counts_cash_per_share_of_today_after_a_transfer_and_the_value_grows_the_report_count(
    monkeypatch, home, cli
):
    # 美的集团's 2015 plan 10派12转增5, ex-date 2016-05-06; the 2016 一季报 (period 2016-03-31)
    # counts the shares before it
    plan = dividend_row("2016-05-06", "1.200000", "", "0.500000", "10转增5派12元（含税）")
    fake, now, record = synced(cli, "000333", "2016-06-03", [plan], ["4266839449.00", "4100000000.00"])
    close, ratio = Decimal(real_close("000333", "2016-06-03")), 1 + Decimal("0.5")
    v = record["valuation"]
    # 1.20 paid on each share before the transfer, which is 1.5 shares of today: 0.80 a share
    assert v["dividend_yield"]["cash_per_share_12m"] == float(Decimal("1.2") / ratio) == 0.8
    assert v["dividend_yield"]["value"] == round(float(Decimal("1.2") / ratio / close), 6)
    # today's count: the report's 4,266,839,449 × 1.5 (the 转增 after its period)
    assert v["total_mv"]["value"] == float(close * Decimal("4266839449") * ratio)
    assert v["float_mv"]["value"] == float(close * Decimal("4100000000") * ratio)
    block_ = cli.block(fake, "美的估值贵不贵", now=now)
    shown_yield = (Decimal("0.8") / close * 100).quantize(Decimal("0.01"))
    assert f"股息率 {shown_yield}%（近 12 个月每股派现（按其后送转折算为今日每股） 0.80 元 ÷ 收盘 {close}）" in block_
    shown_value = (close * Decimal("4266839449") * ratio / Decimal("1e8")).quantize(Decimal("0.01"))
    assert f"总市值 {shown_value:,} 亿元" in block_ and "其后送转 1.5 倍" in block_
    table = cli.ok(fake, "fundamentals", "000333", now=now)
    assert f"{shown_yield}%" in table and f"{shown_value:,} 亿元" in table


def test_a_bonus_issue_paid_with_cash_on_its_ex_date_divides_that_cash(monkeypatch, home, cli):
    # 平安银行's 2015 plan 10送2派1.53, ex-date 2016-06-16: the 0.153 went to each share before
    # the bonus, 1.2 shares of today
    plan = dividend_row("2016-06-16", "0.153000", "0.200000", "", "10送2派1.53元（含税）")
    v = synced(cli, "000001", "2016-07-01", [plan], ["14308676139.00", "11804054528.00"])[2]["valuation"]
    close = Decimal(real_close("000001", "2016-07-01"))
    per_share = Decimal("0.153") / (1 + Decimal("0.2"))
    assert v["dividend_yield"]["cash_per_share_12m"] == float(per_share) == 0.1275
    assert v["dividend_yield"]["value"] == round(float(per_share / close), 6)
    assert v["total_mv"]["share_ratio"] == 1.2


def test_a_dividend_before_a_ten_for_ten_counts_half_a_share_of_today(monkeypatch, home, cli):
    # 1.00 paid 2016-01-11 on each share, then 10转10 on 2016-05-06: each of those shares is two
    # today, so the year's cash is 0.50 a share of today (the transfer's own day pays nothing)
    paid = dividend_row("2016-01-11", "1.000000", "", "", "10派10元（含税）")
    split = dividend_row("2016-05-06", "", "", "1.000000", "10转增10股")
    v = synced(cli, "000333", "2016-06-03", [paid, split], ["4266839449.00", "4100000000.00"])[2]["valuation"]
    close = Decimal(real_close("000333", "2016-06-03"))
    assert (
        v["dividend_yield"]["cash_per_share_12m"] == float(Decimal(1) / 2) and v["dividend_yield"]["payments_12m"] == 1
    )
    assert v["dividend_yield"]["value"] == round(float(Decimal(1) / 2 / close), 6)
    assert v["total_mv"]["value"] == float(close * Decimal("4266839449") * 2)
