"""Figures no company or market could have, fed by stand-ins in the libraries' own shapes
(baostock's ResultData rows of text, akshare's DataFrames with its columns, numbers through
pd.to_numeric): the plausibility gate keeps each such row out with a line naming the source,
the stock, the date and the field; the rest is stored; and every reading command (the
fundamentals, the market review, a question's context, the brief) answers afterwards."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from tests.helpers import ResultData, StandIn, clean_env, pixiu_in_process

NOW = "2026-11-24T16:00:00"  # a Tuesday, after the close
K_FIELDS = ["date", "close", "peTTM", "pbMRQ", "psTTM", "pcfNcfTTM", "tradestatus"]
PROFIT_FIELDS = ["code", "pubDate", "statDate", "roeAvg", "npMargin", "gpMargin", "netProfit", "epsTTM",
                 "MBRevenue", "totalShare", "liqaShare"]  # fmt: skip
DIVIDEND_FIELDS = ["code", "dividPreNoticeDate", "dividAgmPumDate", "dividPlanAnnounceDate", "dividPlanDate",
                   "dividRegistDate", "dividOperateDate", "dividPayDate", "dividStockMarketDate",
                   "dividCashPsBeforeTax", "dividCashPsAfterTax", "dividStocksPs", "dividCashStock",
                   "dividReserveToStockPs"]  # fmt: skip
GOOD_K = [
    ["2026-11-20", "1450.0000", "22.500000", "8.200000", "11.0", "30.0", "1"],
    ["2026-11-23", "1455.0000", "22.600000", "8.300000", "11.0", "30.0", "1"],
]
HOSTILE_K = [
    ["2026-11-18", "1440.0000", "1e308", "8.0", "11.0", "30.0", "1"],  # PE 1e308
    ["2026-11-19", "1445.0000", "22.0", "-1e308", "11.0", "30.0", "1"],  # PB −1e308
    ["2026-11-24", "1460.0000", "23.0", "8.4", "11.0", "30.0", "1"],
]
GOOD_PROFIT = ["2026-10-25", "2026-09-30", "0.288", "0.5111", "0.9145", "66899448230.64", "68.64",
               "130903889210.22", "1256197800.00", "1256197800.00"]  # fmt: skip
HOSTILE_PROFIT = {
    (2026, 2): [
        "2026-08-09",
        "2026-06-30",
        "1e298",
        "0.52",
        "0.915",
        "45e9",
        "67.1",
        "86e9",
        "1256197800",
        "1256197800",
    ],
    (2026, 1): [
        "2026-04-25",
        "2026-03-31",
        "0.1",
        "0.52",
        "0.915",
        "20e9",
        "66.0",
        "1e308",
        "1256197800",
        "1256197800",
    ],
    (2025, 4): [
        "2026-03-30",
        "2025-12-31",
        "0.3",
        "0.52",
        "0.915",
        "80e9",
        "65.0",
        "-1e308",
        "1256197800",
        "1256197800",
    ],
}
DIVIDENDS = [
    # ¥100,000 a share: refused by the bar gate as an action, and now by the fundamentals path too
    ["", "2026-05-20", "2026-04-03", "2026-06-19", "2026-06-25", "2026-06-26", "2026-06-26", "", "100000.000000",
     "100000.000000", "", "10派1000000元（含税）", ""],
    ["", "2025-11-20", "2025-10-29", "2025-12-12", "2025-12-18", "2025-12-19", "2025-12-19", "", "23.957000",
     "23.957000", "", "10派239.57元（含税）", ""],
]  # fmt: skip


class HostileBaostock:
    """baostock's module surface for a fundamentals sync, serving a few hostile figures."""

    def _session(self):
        return ResultData([], [])

    login = logout = _session

    def query_history_k_data_plus(self, code, fields, start_date, end_date, frequency, adjustflag):
        names = fields.split(",")
        if names != K_FIELDS:
            return ResultData(names, [])
        return ResultData(names, sorted(r for r in GOOD_K + HOSTILE_K if start_date <= r[0] <= end_date))

    def query_profit_data(self, code, year, quarter):
        key = (int(year), int(quarter))
        row = GOOD_PROFIT if key == (2026, 3) else HOSTILE_PROFIT.get(key)
        return ResultData(PROFIT_FIELDS, [[code, *row]] if row else [])

    def _empty(self, *args, **kwargs):
        return ResultData(["code", "pubDate", "statDate"], [])

    query_growth_data = query_balance_data = query_cash_flow_data = _empty

    def query_dividend_data(self, code, year, yearType):
        return ResultData(DIVIDEND_FIELDS, [[code, *r] for r in DIVIDENDS if r[5][:4] == year])

    def query_forecast_report(self, code, start_date, end_date):
        fields = ["code", "profitForcastExpPubDate", "profitForcastExpStatDate", "profitForcastType",
                  "profitForcastAbstract", "profitForcastChgPctUp", "profitForcastChgPctDwn"]  # fmt: skip
        return ResultData(fields, [[code, "2026-11-20", "2026-12-31", "预增", "预计增长", "1e300", "5.00"]])

    def query_performance_express_report(self, code, start_date, end_date):
        return ResultData(["code", "performanceExpPubDate", "performanceExpStatDate"], [])


@pytest.fixture
def home(tmp_path):
    home = tmp_path / "home"
    assert pixiu_in_process(clean_env(home), "import", "tests/fixtures/small_portfolio.json", text=True).returncode == 0
    return home


def answers(env: dict[str, str], *args: str) -> str:
    done = pixiu_in_process(env, *args, text=True)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    assert "意外错误" not in done.stdout + done.stderr
    return done.stdout


def test_hostile_fundamentals_are_refused_with_their_row_and_field_and_the_rest_stored(monkeypatch, home):
    cli = StandIn(monkeypatch, "baostock", home, NOW)
    out = cli.ok(HostileBaostock(), "data", "sync", "--fundamentals", "600519")
    assert "未保存：baostock 600519 2026-11-18 市盈率 1e+308倍 超出合理范围" in out
    assert "未保存：baostock 600519 2026-11-19 市净率 -1e+308倍 超出合理范围" in out
    assert "未保存：baostock 600519 2026-06-30 净资产收益率 1e+298 超出合理范围" in out
    assert "未保存：baostock 600519 2026-03-31 营业收入 1e+308元 超出合理范围" in out
    assert "未保存：baostock 600519 2025-12-31 营业收入 -1e+308元 超出合理范围" in out
    # the ¥100,000 dividend is above the close before its ex-date (the stored valuation's)
    assert "未保存：baostock 600519 2026-06-26 每股派现 100000" in out
    assert "未保存：baostock 600519 2026-12-31 预告变动上限" in out
    assert "估值新增 3 天，报告期 1 个（最新 2026 三季报），分红 1 条，业绩预告/快报 0 条" in out
    record = json.loads(cli.ok(HostileBaostock(), "fundamentals", "600519", "--json"))
    assert record["valuation"]["pe_ttm"]["value"] == 23.0 and record["report"]["period"] == "2026-09-30"
    assert [d["cash_per_share"] for d in record["dividends"]] == [23.957]
    env = clean_env(home, PIXIU_NOW=NOW)
    assert "PE(TTM)\t23.00" in answers(env, "fundamentals", "600519")
    answers(env, "context", "茅台的估值贵不贵", "--json")
    answers(env, "ask", "茅台的估值贵不贵")
    answers(env, "brief", "--yes")


SPOT_COLUMNS = ["序号", "代码", "名称", "最新价", "涨跌幅", "涨跌额", "成交量", "成交额", "振幅", "最高", "最低",
                "今开", "昨收", "量比", "换手率", "市盈率-动态", "市净率", "总市值", "流通市值", "涨速", "5分钟涨跌",
                "60日涨跌幅", "年初至今涨跌幅"]  # fmt: skip
BOARD_COLUMNS = ["排名", "板块名称", "板块代码", "最新价", "涨跌额", "涨跌幅", "总市值", "换手率", "上涨家数",
                 "下跌家数", "领涨股票", "领涨股票-涨跌幅"]  # fmt: skip


def spot_frame(rows):
    import pandas as pd

    records = [[i, code, name, price, 1.0, 0.1, 1000.0, amount, 1.0, price, price, price, prev, 1.0, 1.0, 20.0, 2.0,
                1e10, 1e10, 0.0, 0.0, 0.0, 0.0] for i, (code, name, price, prev, amount) in enumerate(rows, 1)]  # fmt: skip
    frame = pd.DataFrame(records, columns=SPOT_COLUMNS)
    for column in SPOT_COLUMNS[3:]:
        frame[column] = pd.to_numeric(frame[column], errors="coerce")
    return frame


def board_frame(boards):
    import pandas as pd

    frame = pd.DataFrame(
        [[i, name, code, 1000.0, 1.0, change, 10**12, 1.0, up, down, "领涨", lead]
         for i, (name, code, change, up, down, lead) in enumerate(boards, 1)],
        columns=BOARD_COLUMNS,
    )  # fmt: skip
    for column in ("最新价", "涨跌额", "涨跌幅", "换手率", "上涨家数", "下跌家数", "领涨股票-涨跌幅"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce")
    return frame


def hostile_akshare():
    spot = [(f"{600000 + i}", "上涨股", 10.10, 10.00, 1e8) for i in range(1200)]
    spot += [("688001", "坏价格", 1e308, 10.0, 1e8), ("688002", "坏成交额", 10.1, 10.0, 1e20)]
    boards = [
        ("煤炭行业", "BK0437", 3.2, 35, 0, 10.12),
        ("坏板块甲", "BK0001", 1.0, 1e20, 3, 9.97),  # crashed the sync
        ("坏板块乙", "BK0002", 1.0, 1e15, 3, 9.97),  # was stored, then crashed pixiu market
        ("坏板块丙", "BK0003", 1e300, 3, 3, 9.97),
    ]
    return SimpleNamespace(
        stock_zh_a_spot_em=lambda: spot_frame(spot), stock_board_industry_name_em=lambda: board_frame(boards)
    )


def test_hostile_market_figures_are_refused_and_the_review_answers(monkeypatch, home):
    cli = StandIn(monkeypatch, "akshare", home, "2026-11-30T16:00:00")
    out = cli.ok(hostile_akshare(), "data", "sync", "--market")
    assert "1,200 只有成交" in out and "行业板块 1 个" in out
    assert "未保存：akshare 688001 2026-11-30 最新价 1e+308元 超出合理范围" in out
    assert "未保存：akshare 688002 2026-11-30 成交额 1e+20元 超出合理范围" in out
    assert "未保存：akshare 坏板块甲 2026-11-30 上涨家数 1e+20只 超出合理范围" in out
    assert "未保存：akshare 坏板块乙 2026-11-30 上涨家数 1e+15只 超出合理范围" in out
    assert "未保存：akshare 坏板块丙 2026-11-30 涨跌幅 1e+298 超出合理范围" in out
    review = json.loads(cli.ok(hostile_akshare(), "market", "--json"))
    assert [i["name"] for i in review["industries"]] == ["煤炭行业"] and review["breadth"]["turnover"] == 1200 * 1e8
    env = clean_env(home, PIXIU_NOW="2026-11-30T16:00:00")
    assert "煤炭行业" in answers(env, "market")
    answers(env, "ask", "今天大盘怎么样")
    answers(env, "brief", "--yes")
