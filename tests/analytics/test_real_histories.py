"""The engine on real unadjusted histories: ex-rights days are not losses, a 一字跌停 day
fills nothing, and a profile's figures come with their provenance."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest

from pixiu_cli.market.analytics.costs import CostModel
from pixiu_cli.market.analytics.engine import run
from pixiu_cli.market.analytics.metrics import measure
from pixiu_cli.market.analytics.profiles import ENGINE_VERSION, load_frame, profile_symbol
from pixiu_cli.market.calendar import SHANGHAI
from pixiu_cli.market.data import MarketData
from pixiu_cli.market.handle import Market
from tests.helpers import load

AFTER_DATA = datetime(2025, 6, 3, 16, 0, tzinfo=SHANGHAI)


def _frame(db, code, since, until):
    load(db, code)
    frame = load_frame(MarketData(Market(db)), code, datetime.fromisoformat(until + "T16:00:00+08:00"), since=since)
    return frame


@pytest.mark.parametrize("code, ex_date", [("000333", "2016-05-06"), ("000001", "2016-06-16")])
def test_holding_through_ex_rights_moves_with_the_market_not_the_gap(db, code, ex_date):
    frame = _frame(db, code, "2016-03-01", "2016-08-31")
    result = run(frame, np.ones(len(frame), dtype=bool), CostModel())
    i = frame.dates.index(ex_date)
    account_move = result.equity[i] / result.equity[i - 1] - 1
    market_move = frame.adj_close[i] / frame.adj_close[i - 1] - 1
    raw_gap = frame.close[i] / frame.close[i - 1] - 1
    assert raw_gap < -0.15  # what a naive backtest would book as a crash
    assert account_move == pytest.approx(market_move, abs=0.002)
    assert measure(result, 1_000_000).max_drawdown > raw_gap


def test_no_sale_on_the_one_price_limit_down_days_after_resumption(db):
    frame = _frame(db, "000002", "2015-10-01", "2016-08-31")
    # hold into the six-month halt, want out at its last close: resumption opens 一字跌停 twice
    wants = np.array([d < "2015-12-18" for d in frame.dates])
    result = run(frame, wants, CostModel())
    assert ("2016-07-04", "开盘跌停，卖不出") in result.blocked and ("2016-07-05", "开盘跌停，卖不出") in result.blocked
    (sell,) = [f for f in result.fills if f.side == "sell"]
    assert sell.day == "2016-07-06"


def test_suspension_has_no_invented_bars_in_the_frame(db):
    frame = _frame(db, "000002", "2015-12-01", "2016-07-31")
    assert "2015-12-18" in frame.dates and "2016-07-04" in frame.dates
    assert frame.dates[frame.dates.index("2015-12-18") + 1] == "2016-07-04"


def test_profile_fields_and_provenance(db):
    load(db, "000333")
    rows, profile = profile_symbol(MarketData(Market(db)), "000333", AFTER_DATA, CostModel())
    assert {r.strategy for r in rows} == {"buy_and_hold", "ma_trend", "breakout", "rsi_reversion"}
    assert sum(r.selected for r in rows) == 1 and profile.as_of == "2025-05-30"
    assert profile.period.startswith("2022-") and profile.engine_version == ENGINE_VERSION
    assert profile.data_source == "csv" and "印花税" in profile.cost_model
    assert profile.max_drawdown < 0 and profile.best_role in ("core", "satellite") and "启发式" in profile.conclusion
    hold = next(r for r in rows if r.strategy == "buy_and_hold")
    assert hold.trades == 0 and hold.win_rate is None and hold.excess_return == 0
    # deterministic: the same bars give the same profile
    assert profile_symbol(MarketData(Market(db)), "000333", AFTER_DATA, CostModel())[1] == profile


def test_last_completed_bar_only(db):
    load(db, "000333")
    during = datetime(2025, 5, 30, 10, 0, tzinfo=SHANGHAI)  # the session of the last bar is still open
    _, profile = profile_symbol(MarketData(Market(db)), "000333", during, CostModel())
    assert profile.as_of == "2025-05-29"


def test_profile_names_its_suspected_missing_actions_and_unmodelled_rules(db):
    load(db, "000333")  # the shipped actions file holds only 2016: 2022–2024's ex-dividend opens are missing
    _, profile = profile_symbol(MarketData(Market(db)), "000333", AFTER_DATA, CostModel())
    assert "疑似缺少除权记录（3 处）" in profile.conclusion
    assert "2023-06-01" in profile.conclusion and "2024-05-15" in profile.conclusion
    assert "未计红利税" in profile.cost_model and "过户费0.002%(2022-04-29起0.001%)" in profile.cost_model
    assert "上市" not in profile.conclusion  # listed in 2013, long before the window


def test_a_window_that_holds_the_listing_says_the_listing_day_is_not_traded(db):
    from pixiu_cli.market.store import Security, SecurityMaster

    load(db, "000333")
    SecurityMaster(db).upsert([Security("000333", "美的集团", list_date="2022-07-01")])  # as if it listed then
    _, profile = profile_symbol(MarketData(Market(db)), "000333", AFTER_DATA, CostModel())
    assert "窗口含上市日 2022-07-01：上市首日没有前收盘、当日不成交，回测从次日开盘起" in profile.conclusion
