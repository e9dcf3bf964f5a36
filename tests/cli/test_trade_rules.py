"""The exchanges' rules on a trade told with `pixiu trade`: T+1, whole lots (odd lots only as a
holding's whole odd part), the fees estimated by date when none is given, and the day a trading
day (weekday words resolved with the trading calendar)."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta

import pytest

from pixiu_cli.market.analytics.costs import CostModel
from pixiu_cli.market.calendar import SHANGHAI
from tests.helpers import MARKET_FIXTURES, clean_env, in_process_ok, in_process_refused

run = in_process_ok
WEDNESDAY = "2025-08-20T16:00"
SUNDAY = "2025-08-24T10:00"


@pytest.fixture
def env(pixiu_home):
    return clean_env(pixiu_home, PIXIU_NOW=WEDNESDAY)


fails = in_process_refused


def trades(env) -> list[dict]:
    return json.loads(run(env, "trades", "--json"))


# T+1 ----------------------------------------------------------------------------------------
def test_shares_bought_today_are_not_sold_today(env):
    run(env, "trade", "buy", "600519", "100", "1500", "--fee", "5")
    refused = fails(env, "trade", "sell", "600519", "100", "1510", "--fee", "5")
    assert "T+1" in refused and "2025-08-20 买入的 100 股当天不能卖出" in refused and "此前持有的 0 股" in refused
    assert len(trades(env)) == 1  # nothing written


def test_shares_held_before_today_are_sold_on_a_buying_day(env):
    run(env, "trade", "buy", "600519", "100", "1500", "--date", "2025-08-19", "--fee", "5")
    run(env, "trade", "buy", "600519", "200", "1490", "--fee", "5")
    assert "已记录" in run(env, "trade", "sell", "600519", "100", "1510", "--fee", "5")
    # the earlier 100 are gone: what is left was bought today
    assert "此前持有的 0 股" in fails(env, "trade", "sell", "600519", "100", "1510", "--fee", "5")
    # a backdated sell on the day of the first buy is T+1 too
    assert "2025-08-19 买入的 100 股" in fails(
        env, "trade", "sell", "600519", "100", "1510", "--date", "2025-08-19", "--fee", "5"
    )


# lots ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "code, shares, rule",
    [
        ("600519", "50", "主板按 100 股的整数倍买卖"),
        ("000333", "150", "主板按 100 股的整数倍买卖"),
        ("300750", "250", "创业板按 100 股的整数倍买卖"),
        ("688981", "150", "科创板每笔至少 200 股，以上按 1 股递增"),
        ("600519", "100.5", "100.5 不是整数股"),
    ],
)
def test_a_buy_outside_the_boards_order_size_is_refused(env, code, shares, rule):
    assert rule in fails(env, "trade", "buy", code, shares, "50", "--fee", "5")
    assert trades(env) == []


def test_star_and_beijing_buys_step_by_one_share_above_their_minimum(env):
    assert "已记录" in run(env, "trade", "buy", "688981", "201", "50", "--date", "2025-08-19", "--fee", "5")
    assert "已记录" in run(env, "trade", "buy", "920002", "101", "20", "--date", "2025-08-19", "--fee", "5")
    # a STAR sell under 200 is only the whole holding's odd part: 201 holds none
    assert "科创板每笔至少 200 股" in fails(env, "trade", "sell", "688981", "1", "50", "--fee", "5")
    assert "已记录" in run(env, "trade", "sell", "688981", "200", "50", "--fee", "5")
    assert "已记录" in run(env, "trade", "sell", "688981", "1", "50", "--fee", "5")  # the last share, at once


@pytest.fixture
def bonus(env):
    """100 shares of 000001 bought before its 10送2 of 2016-06-16: 120 held, 20 of them odd."""
    run(
        env, "data", "import", str(MARKET_FIXTURES / "000001.csv"), "--symbol", "000001",
        "--actions", str(MARKET_FIXTURES / "000001_actions.csv"), "--no-refresh",
    )  # fmt: skip
    run(env, "trade", "buy", "000001", "100", "10.5", "--date", "2016-06-01", "--fee", "5")
    return env


def test_odd_shares_a_bonus_issue_left_are_sold_only_all_at_once(bonus):
    env = bonus
    assert "现有零股 20 股" in fails(env, "trade", "sell", "000001", "10", "12", "--fee", "1")
    assert "现有零股 20 股" in fails(env, "trade", "sell", "000001", "50", "12", "--fee", "1")
    assert "已记录" in run(env, "trade", "sell", "000001", "20", "12", "--date", "2025-08-18", "--fee", "1")
    assert "已记录" in run(env, "trade", "sell", "000001", "100", "12", "--fee", "5")
    assert json.loads(run(env, "holdings", "--json"))["holdings"] == []


def test_the_whole_remainder_with_lots_goes_in_one_sell(bonus):
    assert "已记录" in run(bonus, "trade", "sell", "000001", "120", "12", "--fee", "5")  # a lot and the odd 20


# fees ---------------------------------------------------------------------------------------
def test_a_trade_without_a_fee_is_charged_the_estimate_and_says_so(env):
    run(env, "cash", "set", "200000")
    told = run(env, "trade", "buy", "600519", "100", "1500")
    # 万2.5 of 150,000 = 37.50 and the transfer fee 0.001% = 1.50
    assert "费用 39.00 元（估算，导入对账单后以实际为准）" in told
    assert json.loads(run(env, "holdings", "--json"))["cash"]["amount"] == 200000 - 150000 - 39.0
    (line,) = trades(env)
    assert (line["fees"], line["fees_estimated"]) == (39.0, True)
    assert "39.00（估算）" in run(env, "trades")
    block = run(env, "context", "我最近的交易记录", "--pretty")
    assert "费用 39.00（估算）" in block


def test_a_given_fee_is_the_users_and_not_an_estimate(env):
    told = run(env, "trade", "buy", "600519", "100", "1500", "--fee", "12.3")
    assert "费用 12.30 元" in told and "估算" not in told
    assert trades(env)[0]["fees_estimated"] is False


@pytest.mark.parametrize(
    "day, fee",
    [
        # 100 × 16 = 1,600: the minimum commission 5, stamp duty 0.1% = 1.60, transfer 0.001% = 0.016
        ("2023-08-25", 5 + 1.6 + 0.016),
        ("2023-08-28", 5 + 0.8 + 0.016),  # stamp duty halved
        # 2022-04-28: transfer fee 0.002% = 0.032
        ("2022-04-28", 5 + 1.6 + 0.032),
        # 2015-07-31, Shanghai: the transfer fee on the face value, 0.3‰ of 100 shares × ¥1 = 0.03
        ("2015-07-31", 5 + 1.6 + 0.03),
    ],
)
def test_the_sell_estimate_follows_the_dated_duties(env, day, fee):
    run(env, "trade", "buy", "600000", "200", "15", "--date", "2015-07-01", "--fee", "5")
    run(env, "trade", "sell", "600000", "100", "16", "--date", day)
    sold = trades(env)[-1]
    assert (sold["fees"], sold["fees_estimated"]) == (round(fee, 2), True)


def test_the_account_commission_comes_from_the_config(env):
    run(env, "config", "set", "account.commission_rate", "0.0001")
    run(env, "config", "set", "account.commission_min", "0")
    run(env, "trade", "buy", "000333", "1000", "70")
    # 万1 of 70,000 = 7.00, no minimum, transfer 0.70
    assert trades(env)[0]["fees"] == 7.7
    assert "0 到 0.003 之间的数字" in fails(env, "config", "set", "account.commission_rate", "0.5")


def test_the_backtest_and_the_estimate_use_one_fee_table(env):
    run(env, "trade", "buy", "000333", "1000", "70", "--date", "2021-03-01")
    run(env, "trade", "sell", "000333", "1000", "75", "--date", "2023-09-01")
    bought, sold = trades(env)
    costs = CostModel()
    assert bought["fees"] == round(costs.fees(70000, "2021-03-01", selling=False), 2)
    assert sold["fees"] == round(costs.fees(75000, "2023-09-01", selling=True), 2)


# days ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "day, said",
    [
        (
            "2025-08-16",
            "2025-08-16（周六） 周末休市，没有成交：上一个交易日是 2025-08-15（周五），下一个是 2025-08-18（周一）",
        ),
        (
            "2024-10-01",
            "2024-10-01（周二） 节假日休市，没有成交：上一个交易日是 2024-09-30（周一），下一个是 2024-10-08（周二）",
        ),
        ("1989-01-03", "1989-01-03 早于 A 股第一个交易日 1990-12-19（上交所开业）"),
        ("下周一", "无法识别的日期：下周一"),
    ],
)
def test_a_day_the_exchanges_were_closed_is_refused_with_the_sessions_around_it(env, day, said):
    assert said in fails(env, "trade", "buy", "600519", "100", "1500", "--date", day, "--fee", "5")
    assert trades(env) == []


def test_today_is_refused_on_a_weekend(pixiu_home):
    env = clean_env(pixiu_home, PIXIU_NOW=SUNDAY)
    assert "2025-08-24（周日） 周末休市" in fails(env, "trade", "buy", "600519", "100", "1500", "--fee", "5")


@pytest.mark.parametrize(
    "words, day", [("周五", "2025-08-22"), ("星期三", "2025-08-20"), ("上周五", "2025-08-15"), ("前天", "2025-08-22")]
)
def test_weekday_words_name_the_session(pixiu_home, words, day):
    env = clean_env(pixiu_home, PIXIU_NOW=SUNDAY)
    assert f"已记录 #d1：{day} 买入" in run(env, "trade", "buy", "600519", "100", "1500", "--date", words, "--fee", "5")


@pytest.mark.filterwarnings("ignore:Series.values")
def test_the_days_a_trade_may_be_told_on_are_xshgs_sessions():
    import exchange_calendars

    from pixiu_cli.account.overview import trade_day
    from pixiu_cli.kernel.errors import RequestError

    xshg = exchange_calendars.get_calendar("XSHG", start="2018-01-01", end="2025-12-31")
    sessions = {ts.date() for ts in xshg.sessions}
    now = datetime(2026, 1, 5, 16, tzinfo=SHANGHAI)
    accepted, day = set(), date(2018, 1, 1)
    while day <= date(2025, 12, 31):
        try:
            accepted.add(trade_day(day.isoformat(), now))
        except RequestError:
            pass
        day += timedelta(days=1)
    assert accepted == sessions and len(accepted) > 1900
