"""The chart's data: front-adjusted closes, moving averages, the cost line and trade
markers placed on the adjusted scale."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest

from pixiu_cli.market.chart import ChartError, build, chart_data, moving_average
from pixiu_cli.market.data import MarketData
from pixiu_cli.market.trading_days import SHANGHAI
from pixiu_cli.store.domain import DomainStore
from tests.helpers import load


def test_moving_average():
    assert moving_average((1.0, 2.0, 3.0, 4.0), 2) == (None, 1.5, 2.5, 3.5)
    assert moving_average((1.0,), 20) == (None,)


def test_trade_markers_sit_on_the_adjusted_scale(db):
    load(db, "000333", name="美的集团")
    from pixiu_cli.services.account import read_account
    from pixiu_cli.services.trades import NewTrade, record_trade

    record_trade(db, NewTrade("000333", "buy", 32.99, 1000, None, "美的集团", "user"), "2016-05-05T14:00:00+08:00")
    # bought before the 2016-05-31 10转5派12: 1,500 shares, the 32,990 paid less the 1,200
    # received over 1,500 shares = 21.19 real yuan (the qfq scale of the last bar is 1)
    held = read_account(db, datetime(2025, 6, 3, tzinfo=SHANGHAI)).account.holding("000333")
    assert held.shares == 1500 and round(held.cost, 2) == Decimal("21.19")
    data = chart_data(MarketData(db), DomainStore(db), "000333", 2400, float(held.cost))
    assert data.name == "美的集团" and len(data.dates) == 2380
    assert data.cost_line == pytest.approx((32.99 - 1.2) / 1.5)
    (mark,) = data.trades
    assert (mark.date, mark.side) == ("2016-05-05", "buy")
    assert mark.price == pytest.approx((32.99 - 1.2) / 1.5)  # the real 32.99 drawn where the qfq line is
    i = data.dates.index("2016-05-05")
    assert data.close[i] == pytest.approx(mark.price)
    assert data.ma20[18] is None and data.ma20[19] == pytest.approx(sum(data.close[:20]) / 20)
    text = build(MarketData(db), DomainStore(db), "000333", 2400, float(held.cost), color=False, width=100, height=25)
    assert "收盘(前复权)" in text and "买入" in text and "成本 21.19" in text


def test_no_bars_is_a_chart_error(db):
    with pytest.raises(ChartError, match="没有 000333 的行情数据"):
        chart_data(MarketData(db), DomainStore(db), "000333", 60)


@pytest.mark.parametrize("width", [80, 120, 160])
def test_the_chart_fits_the_terminal_width_with_chinese_title_and_legend(db, width):
    from wcwidth import wcswidth

    load(db, "000333", name="美的集团")
    from pixiu_cli.services.trades import NewTrade, record_trade

    record_trade(db, NewTrade("000333", "buy", 70.0, 1000, None, "美的集团", "user"), "2025-03-03T14:00:00+08:00")
    text = build(MarketData(db), DomainStore(db), "000333", 120, 70.0, color=False, width=width, height=24)
    widest = max(wcswidth(line) for line in text.splitlines())
    assert widest <= width and widest >= width - 12  # fits, and still uses the terminal
    assert "000333 美的集团" in text and "收盘(前复权)" in text
