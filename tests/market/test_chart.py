"""The chart's data: front-adjusted closes, moving averages, the cost line and trade
markers placed on the adjusted scale."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest

from pixiu_cli.account.handle import Account
from pixiu_cli.home.store import InvestorStore
from pixiu_cli.market.calendar import SHANGHAI
from pixiu_cli.market.chart import ChartError, build, chart_data, moving_average
from pixiu_cli.market.data import MarketData
from pixiu_cli.market.handle import Market
from tests.helpers import load


def test_moving_average():
    assert moving_average((1.0, 2.0, 3.0, 4.0), 2) == (None, 1.5, 2.5, 3.5)
    assert moving_average((1.0,), 20) == (None,)


def test_trade_markers_sit_on_the_adjusted_scale(db):
    load(db, "000333", name="美的集团")
    from pixiu_cli.account.overview import read_account
    from pixiu_cli.account.trades import NewTrade, record_trade

    record_trade(
        Account(db),
        NewTrade("000333", "buy", 32.99, 1000, None, "美的集团", "user", fee=0.0),
        "2016-05-05T14:00:00+08:00",
    )
    # bought before the 2016-05-31 10转5派12: 1,500 shares, the 32,990 paid less the 1,200
    # received over 1,500 shares = 21.19 real yuan (the qfq scale of the last bar is 1)
    held = read_account(Account(db), datetime(2025, 6, 3, tzinfo=SHANGHAI)).account.holding("000333")
    assert held.shares == 1500 and round(held.cost, 2) == Decimal("21.19")
    data = chart_data(MarketData(Market(db)), InvestorStore(db), "000333", 2400, float(held.cost))
    assert data.name == "美的集团" and len(data.dates) == 2380
    assert data.cost_line == pytest.approx((32.99 - 1.2) / 1.5)
    (mark,) = data.trades
    assert (mark.date, mark.side) == ("2016-05-05", "buy")
    assert mark.price == pytest.approx((32.99 - 1.2) / 1.5)  # the real 32.99 drawn where the qfq line is
    i = data.dates.index("2016-05-05")
    assert data.close[i] == pytest.approx(mark.price)
    assert data.ma20[18] is None and data.ma20[19] == pytest.approx(sum(data.close[:20]) / 20)
    text = build(
        MarketData(Market(db)), InvestorStore(db), "000333", 2400, float(held.cost), color=False, width=100, height=25
    )
    assert "收盘(前复权)" in text and "买入" in text and "成本 21.19" in text


def test_no_bars_is_a_chart_error(db):
    with pytest.raises(ChartError, match="没有 000333 的行情数据"):
        chart_data(MarketData(Market(db)), InvestorStore(db), "000333", 60)


@pytest.mark.parametrize("width", [80, 120, 160])
def test_the_chart_fits_the_terminal_width_with_chinese_title_and_legend(db, width):
    from wcwidth import wcswidth

    load(db, "000333", name="美的集团")
    from pixiu_cli.account.trades import NewTrade, record_trade

    record_trade(
        Account(db), NewTrade("000333", "buy", 70.0, 1000, None, "美的集团", "user"), "2025-03-03T14:00:00+08:00"
    )
    text = build(MarketData(Market(db)), InvestorStore(db), "000333", 120, 70.0, color=False, width=width, height=24)
    widest = max(wcswidth(line) for line in text.splitlines())
    assert widest <= width and widest >= width - 12  # fits, and still uses the terminal
    assert "000333 美的集团" in text and "收盘(前复权)" in text


def test_the_title_is_kept_at_80_columns_with_a_long_name_and_the_cost(db):
    from wcwidth import wcswidth

    long_name = "美的集团股份有限公司长名字测试一二三"  # 19 characters, 38 cells
    load(db, "000333", name=long_name)
    text = build(MarketData(Market(db)), InvestorStore(db), "000333", 2400, 21.19, color=False, width=80, height=24)
    lines = text.splitlines()
    assert max(wcswidth(line) for line in lines) <= 80
    title = " ".join(line.strip() for line in lines[:2])  # 6 + 1 + 38 + 3 + 24 = 72 cells, then 收盘 and 成本
    assert f"000333 {long_name}" in title and "2015-06-01 至 2025-05-30" in title
    assert "收盘 79.06" in title and "成本 21.19" in title


def test_a_piped_chart_has_no_escape_sequence_and_its_title(tmp_path):
    from tests.helpers import MARKET_FIXTURES, clean_env, in_process_ok, pixiu_in_process

    hostile = "美的\x1b]52;c;cHduZWQ=\x07集团\x1b[2J"  # OSC 52 (write the clipboard), clear screen
    env = clean_env(tmp_path / "home", PIXIU_NOW="2025-06-03T16:00")
    in_process_ok(env, "data", "import", str(MARKET_FIXTURES / "000333.csv"), "--symbol", "000333", "--name", hostile)
    in_process_ok(env, "trade", "buy", "000333", "100", "70", "--date", "2025-03-03", "--fee", "0")
    for columns in ("80", "160"):
        done = pixiu_in_process(dict(env, COLUMNS=columns), "chart", "000333", text=True)
        assert done.returncode == 0, done.stderr
        assert "\x1b" not in done.stdout and "\x07" not in done.stdout, columns
        assert "000333 美的" in done.stdout and "收盘 79.06" in done.stdout and "成本 70.00" in done.stdout, columns
