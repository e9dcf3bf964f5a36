"""Each A-share execution rule of the engine, on bars small enough to check by hand."""

from __future__ import annotations

import numpy as np
import pytest

from pixiu_cli.market.analytics.costs import CostModel
from pixiu_cli.market.analytics.engine import run
from pixiu_cli.market.analytics.metrics import measure
from pixiu_cli.market.bars import CorporateAction
from tests.helpers import NO_COSTS, frame_of


def wants(*flags) -> np.ndarray:
    return np.array(flags, dtype=bool)


def test_signal_at_close_fills_at_next_open():
    frame = frame_of("600000", [(10, 10), (10, 10.5), (10.6, 11), (11.2, 11)])
    result = run(frame, wants(False, True, True, True), NO_COSTS, cash=10_000)
    (fill,) = result.fills
    assert (fill.day, fill.price, fill.shares) == (frame.dates[2], 10.6, 900)  # not day 1's close of 10.5
    assert result.equity[-1] == pytest.approx(10_000 - 900 * 10.6 + 900 * 11)


def test_golden_round_trip_by_hand():
    # buy 900 @ 10.6 on day 2 (cash 10,000), sell @ 11.8 on day 4: 900 × 1.2 = 1,080 less the
    # stamp duty no cost model can waive, 0.05% of 10,620 = 5.31
    frame = frame_of("600000", [(10, 10), (10, 10.5), (10.6, 11), (11, 11.5), (11.8, 12)])
    result = run(frame, wants(False, True, True, False, False), NO_COSTS, cash=10_000)
    assert [(f.side, f.price, f.shares) for f in result.fills] == [("buy", 10.6, 900), ("sell", 11.8, 900)]
    (trip,) = result.round_trips
    assert trip.pnl == pytest.approx(1_074.69)
    assert result.equity.tolist() == pytest.approx([10_000, 10_000, 10_360, 10_810, 11_074.69])
    m = measure(result, 10_000)
    assert (m.trades, m.win_rate, m.exposure) == (1, 1.0, 0.4)
    assert m.max_drawdown == 0.0


def test_no_fill_on_a_suspended_day():
    frame = frame_of("600000", [(10, 10), (10, 10), (10, 10, 10, 10, False), (10.2, 10.3)])
    result = run(frame, wants(True, True, True, True), NO_COSTS, cash=10_000)
    assert result.fills[0].day == frame.dates[1]
    frame = frame_of("600000", [(10, 10), (10, 10, 10, 10, False), (10.2, 10.3)])
    result = run(frame, wants(True, True, True), NO_COSTS, cash=10_000)
    assert result.fills[0].day == frame.dates[2] and result.blocked == [(frame.dates[1], "停牌")]


def test_no_buy_at_an_open_pinned_at_limit_up_and_no_sell_at_limit_down():
    up = frame_of("600000", [(10, 10), (11, 11, 11, 11), (11.5, 11.6)])  # 11.00 = 10 × 1.10
    result = run(up, wants(True, True, True), NO_COSTS, cash=100_000)
    assert result.blocked == [(up.dates[1], "开盘涨停，买不进")] and result.fills[0].day == up.dates[2]
    down = frame_of("600000", [(10, 10), (10, 10), (9, 9, 9, 9), (8.5, 8.8)])  # 9.00 = 10 × 0.90
    result = run(down, wants(True, False, False, False), NO_COSTS, cash=100_000)
    assert result.blocked == [(down.dates[2], "开盘跌停，卖不出")]
    assert [f.side for f in result.fills] == ["buy", "sell"] and result.fills[1].day == down.dates[3]


@pytest.mark.parametrize(
    "symbol, start, is_st, limit",
    [
        ("600000", "2024-03-04", False, 0.10),
        ("600000", "2024-03-04", True, 0.05),
        ("300750", "2020-08-10", False, 0.10),
        ("300750", "2020-08-24", False, 0.20),
        ("688981", "2024-03-04", False, 0.20),
        ("830799", "2024-03-04", False, 0.30),
    ],
)
def test_limits_by_board_date_and_st(symbol, start, is_st, limit):
    frame = frame_of(symbol, [(10, 10, 10, 10, True, is_st), (10, 10, 10, 10, True, is_st)], start=start)
    assert frame.limit_up[1] == pytest.approx(round(10 * (1 + limit), 2))
    assert frame.limit_down[1] == pytest.approx(round(10 * (1 - limit), 2))


def test_no_limit_in_the_first_days_after_listing():
    rows = [(10, 10)] + [(20, 20)] * 6
    frame = frame_of("301001", rows, list_date="2024-03-04")
    assert np.isinf(frame.limit_up[1:5]).all() and not np.isinf(frame.limit_up[5])


@pytest.mark.parametrize(
    "symbol, list_date, free",
    [
        ("300750", "2018-06-11", 1),  # ChiNext before its reform: the first day only (capped on the issue price)
        ("300999", "2020-08-21", 1),  # the last ChiNext listing day before 2020-08-24
        ("301001", "2020-08-24", 5),  # ChiNext registration reform
        ("688001", "2019-07-22", 5),  # STAR, from its first day
        ("002001", "2004-06-25", 1),  # the SME board (a main board since)
        ("603135", "2023-04-07", 1),  # main board, the last day before its reform
        ("603135", "2023-04-10", 5),  # main board registration reform
        ("920002", "2024-03-04", 1),  # BSE: no limit on the first day, 30% from the second
    ],
)
def test_listing_sessions_without_a_limit_by_board_and_listing_date(symbol, list_date, free):
    from pixiu_cli.market.securities import listing_free_sessions

    assert listing_free_sessions(symbol, list_date) == free
    frame = frame_of(symbol, [(10, 10)] * 7, start=list_date, list_date=list_date)
    assert np.isinf(frame.limit_up[:free]).all() and np.isfinite(frame.limit_up[free:]).all()


# A ChiNext debut before the reform, built by hand after 300750's in June 2018 (prices made
# up, dates as weekdays): issue price 25.14, day one one-price at the +44% cap, 25.14 × 1.44 =
# 36.2016 → 36.20, then six one-price limit-ups of +10% on the close before (each rounded to
# the fen): 39.82, 43.80, 48.18, 53.00, 58.30, 64.13; day eight opens 66.00, under its 70.54.
_DEBUT = [(p, p, p, p) for p in (36.20, 39.82, 43.80, 48.18, 53.00, 58.30, 64.13)] + [(66.00, 70.00, 63.00, 68.00)]


def test_a_pre_reform_debut_run_of_one_price_limit_ups_cannot_be_bought_into():
    frame = frame_of("300750", _DEBUT, start="2018-06-11", list_date="2018-06-11")
    assert frame.limit_up[1:7].tolist() == [39.82, 43.80, 48.18, 53.00, 58.30, 64.13]
    assert frame.limit_up[7] == 70.54  # 64.13 × 1.10 = 70.543
    result = run(frame, np.ones(len(frame), dtype=bool), NO_COSTS, cash=100_000)
    assert result.blocked == [(day, "开盘涨停，买不进") for day in frame.dates[1:7]]
    (fill,) = result.fills
    assert (fill.day, fill.price, fill.shares) == (frame.dates[7], 66.00, 1500)  # 100,000 / 66 = 1515 → 1500
    assert result.equity[-1] == pytest.approx(100_000 - 1500 * 66.00 + 1500 * 68.00)  # 103,000


def test_the_same_run_after_the_reform_is_free_for_five_sessions():
    frame = frame_of("300750", _DEBUT, start="2020-08-24", list_date="2020-08-24")
    result = run(frame, np.ones(len(frame), dtype=bool), NO_COSTS, cash=100_000)
    (fill,) = result.fills
    assert result.blocked == [] and (fill.day, fill.price, fill.shares) == (frame.dates[1], 39.82, 2500)
    assert frame.limit_up[5] == 63.60  # day six: 20% on the 53.00 before


def test_t_plus_one_and_alternating_signals():
    frame = frame_of("600000", [(10, 10)] * 8)
    result = run(frame, wants(True, False, True, False, True, False, True, False), NO_COSTS, cash=10_000)
    for trip in result.round_trips:
        assert trip.exit_day > trip.entry_day
    days = [f.day for f in result.fills]
    assert len(days) == len(set(days))  # never a buy and a sell on one day


def test_whole_lots_and_star_lots():
    main = run(frame_of("600000", [(33, 33), (33, 33)]), wants(True, True), NO_COSTS, cash=100_000)
    assert main.fills[0].shares == 3000  # 100,000 / 33 = 3030 → 3000
    # STAR: at least 200 shares, then one-share steps
    star = run(frame_of("688001", [(33, 33), (33, 33)]), wants(True, True), NO_COSTS, cash=100_000)
    assert star.fills[0].shares == 3030
    star = run(frame_of("688001", [(33, 33), (33, 33)]), wants(True, True), NO_COSTS, cash=10_000)
    assert star.fills[0].shares == 303
    star = run(frame_of("688001", [(33, 33), (33, 33)]), wants(True, True), NO_COSTS, cash=6_000)
    assert star.fills == []  # 181 shares affordable: below the minimum order of 200
    bse = run(frame_of("920002", [(33, 33), (33, 33)]), wants(True, True), NO_COSTS, cash=10_000)
    assert bse.fills[0].shares == 303  # BSE: at least 100, then one-share steps


def test_fees_leave_a_star_order_inside_the_cash():
    costs = CostModel()
    star = run(frame_of("688001", [(33, 33), (33, 33)]), wants(True, True), costs, cash=10_000)
    fill = star.fills[0]
    one_more = (fill.shares + 1) * fill.price
    assert fill.shares * fill.price + fill.fees <= 10_000 < one_more + costs.fees(one_more, fill.day, False)


def test_transfer_fee_and_st_limit_are_dated():
    costs = CostModel(commission_rate=0.0, commission_min=0.0, slippage_bps=0.0)
    assert costs.fees(1_000_000, "2022-04-28", selling=False) == pytest.approx(20.0)  # 0.002%
    assert costs.fees(1_000_000, "2022-04-29", selling=False) == pytest.approx(10.0)  # 0.001%
    assert "过户费0.002%(2022-04-29起0.001%)" in costs.describe() and "未计红利税" in costs.describe()
    from pixiu_cli.market.securities import daily_limit

    assert daily_limit("600000", "2026-07-03", is_st=True) == 0.05
    assert daily_limit("600000", "2026-07-06", is_st=True) == 0.10  # main-board ST aligned with the board
    assert daily_limit("000001", "2026-07-06", is_st=True) == 0.10
    assert daily_limit("300001", "2020-08-21", is_st=True) == 0.05 and daily_limit("300001", "2020-08-24", True) == 0.20
    assert daily_limit("688001", "2026-07-03", is_st=True) == 0.20  # STAR ST never had a 5% limit
    from pixiu_cli.market.analytics.engine import limit_array

    days = np.asarray(["2026-07-02", "2026-07-03", "2026-07-06", "2026-07-07"])
    limits = limit_array("600000", days, np.array([True, True, True, False]))
    assert limits.tolist() == [0.05, 0.05, 0.10, 0.10]  # the frame's limits follow the same table


def test_costs_by_date_commission_minimum_and_slippage():
    costs = CostModel()
    assert costs.fees(10_000, "2023-08-25", selling=True) == pytest.approx(5 + 0.1 + 10)  # min commission
    assert costs.fees(10_000, "2023-08-28", selling=True) == pytest.approx(5 + 0.1 + 5)  # stamp duty halved
    assert costs.fees(1_000_000, "2024-01-02", selling=False) == pytest.approx(250 + 10)  # no stamp on buys
    assert costs.fill_price(10.0, buying=True) == pytest.approx(10.005)
    assert costs.fill_price(10.0, buying=False) == pytest.approx(9.995)
    frame = frame_of("600000", [(10, 10), (10, 10), (10, 10)], start="2023-08-24")
    result = run(frame, wants(True, False, False), costs, cash=100_000)
    buy, sell = result.fills
    assert sell.day == "2023-08-28" and sell.fees == pytest.approx(
        costs.fees(sell.shares * sell.price, "2023-08-28", True)
    )


def test_ex_rights_day_is_not_a_loss():
    # 10派12转增5 on day 2: close 33 → reference (33 − 1.2) / 1.5 = 21.2
    actions = [CorporateAction("000333", "2024-03-06", 1.2, 0.5)]
    frame = frame_of("000333", [(33, 33), (33, 33), (21.2, 21.2), (21.2, 21.2)], actions)
    result = run(frame, wants(True, True, True, True), NO_COSTS, cash=33_000)
    assert result.fills[0].shares == 1000 and result.equity[-1] == pytest.approx(33_000)  # 1500 × 21.2 + 1200
    assert frame.adj_close[0] == pytest.approx(21.2) and frame.limit_up[2] == pytest.approx(23.32)
