"""Ex-dividend opens inside the price limit that no stored action covers (疑似缺少除权记录), on
the real histories of tests/fixtures/market/ (README there): their actions files hold only
the 2016 events, though both companies paid cash dividends most later years."""

from __future__ import annotations

from pixiu_cli.market.bars import Bar, CorporateAction, missing_actions_note, missing_dividend_gaps
from pixiu_cli.market.data import MarketData
from pixiu_cli.market.handle import Market
from pixiu_cli.market.store import MarketStore
from tests.helpers import load


def test_one_suspected_ex_dividend_day_per_unpaid_season(db):
    load(db, "000333")
    gaps = MarketData(Market(db)).missing_actions("000333")
    assert [g.date[:4] for g in gaps] == [str(y) for y in range(2017, 2025)]  # 2015, 2025: season not covered
    days = {g.date for g in gaps}
    assert {"2017-05-10", "2023-06-01", "2024-05-15"} <= days  # −2.4%, −4.5%, −3.3% opens
    assert all(-0.10 < g.change <= -0.015 for g in gaps)
    assert missing_actions_note(len(gaps)) == "疑似缺少除权记录（8 处）"


def test_a_day_the_other_series_opened_as_low_is_the_market_not_a_dividend(db):
    load(db, "000333")
    alone = {g.date for g in MarketData(Market(db)).missing_actions("000333")}
    assert "2019-05-06" in alone  # −4.8%: the largest gap of 2019's season
    load(db, "000001")
    load(db, "000002", actions=False)
    with_peers = {g.date for g in MarketData(Market(db)).missing_actions("000333")}
    assert "2019-05-06" not in with_peers  # all three opened 3–5% lower that day
    assert {"2017-05-10", "2023-06-01", "2024-05-15"} <= with_peers


def test_a_recorded_dividend_closes_its_year_and_a_stock_without_actions_is_not_judged(db, tmp_path):
    from pixiu_cli.market.importer import import_csv
    from pixiu_cli.market.store import SecurityMaster
    from tests.helpers import MARKET_FIXTURES

    actions = tmp_path / "000333_actions.csv"
    actions.write_text(
        "ex_date,cash_per_share,shares_per_share\n2016-05-06,1.2,0.5\n2023-06-01,2.5,0\n", encoding="utf-8"
    )
    import_csv(
        MarketStore(db),
        SecurityMaster(db),
        MARKET_FIXTURES / "000333.csv",
        "000333",
        at="2026-11-30T16:00:00+08:00",
        actions_path=actions,
    )
    days = {g.date for g in MarketData(Market(db)).missing_actions("000333")}
    assert len(days) == 7 and not any(d.startswith("2023") for d in days)
    load(db, "000002", actions=False)
    assert MarketData(Market(db)).missing_actions("000002") == []  # not known to pay: no guess


def test_limit_opens_and_resumptions_are_not_dividends():
    action = [CorporateAction("600000", "2016-06-01", 0.1, 0.0)]
    bars = [
        Bar("2019-04-30", 10.0, 10.0, 10.0, 10.0, 1000.0),
        Bar("2019-05-06", 9.0, 9.0, 9.0, 9.0, 1000.0),  # −10%: a limit-down open
        Bar("2019-05-07", 9.0, 9.1, 8.9, 9.0, 1000.0),
        Bar("2019-06-20", 8.7, 8.8, 8.6, 8.7, 1000.0),  # −3.3% after six weeks suspended
        Bar("2019-06-21", 8.5, 8.6, 8.4, 8.5, 1000.0),  # −2.3%: this one
        Bar("2019-09-02", 8.5, 8.6, 8.4, 8.5, 1000.0),
    ]
    gaps = missing_dividend_gaps("600000", bars, action)
    assert [g.date for g in gaps] == ["2019-06-21"]
    assert missing_dividend_gaps("600000", bars, []) == []
