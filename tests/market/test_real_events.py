"""The real events in the fixtures: ex-rights days move the adjusted series by the real
market move, suspensions leave no invented bars, and a holder keeps the real value."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest

from pixiu_cli.account.handle import Account
from pixiu_cli.account.overview import read_account
from pixiu_cli.market.calendar import SHANGHAI
from pixiu_cli.market.data import MarketData
from pixiu_cli.market.handle import Market
from pixiu_cli.market.store import MarketStore
from tests.helpers import load
from tests.helpers import truncated_history as _truncated


def _change_on(series, day: str) -> float:
    i = series.dates.index(day)
    return series.close[i] / series.close[i - 1] - 1


@pytest.mark.parametrize(
    "code, day, raw_change, real_change",
    [
        # 000333 10派12转增5: close 32.99 → 20.35; reference (32.99 − 1.2) / 1.5 = 21.1933
        ("000333", "2016-05-06", -0.383, 20.35 / ((32.99 - 1.2) / 1.5) - 1),
        # 000001 10派1.53送2: close 10.44 → reference (10.44 − 0.153) / 1.2 = 8.5725
        ("000001", "2016-06-16", -0.179, None),
    ],
)
def test_ex_rights_day_moves_by_the_real_market_move(db, code, day, raw_change, real_change):
    load(db, code)
    data = MarketData(Market(db))
    raw = data.bars(code, "none")
    assert _change_on(raw, day) == pytest.approx(raw_change, abs=0.002)  # the fake crash is stored as is
    i = raw.dates.index(day)
    action = MarketStore(db).actions(code)[0]
    reference = (raw.close[i - 1] - action.cash_per_share) / (1 + action.shares_per_share)
    expected = real_change if real_change is not None else raw.close[i] / reference - 1
    for mode in ("qfq", "hfq"):
        adjusted = data.bars(code, mode)
        assert _change_on(adjusted, day) == pytest.approx(expected, abs=1e-9)
        assert abs(_change_on(adjusted, day)) < 0.10  # a normal day, not −18% / −36%


@pytest.mark.parametrize("code", ["000333", "000001", "000002"])
def test_adjusted_series_has_no_move_beyond_the_daily_limit(db, code):
    load(db, code)
    qfq = MarketData(Market(db)).bars(code, "qfq")
    moves = [b / a - 1 for a, b in zip(qfq.close, qfq.close[1:])]
    assert max(abs(m) for m in moves) <= 0.1 + 0.005


def test_qfq_ends_on_real_prices_and_hfq_starts_on_them(db):
    load(db, "000333")
    data = MarketData(Market(db))
    raw, qfq, hfq = data.bars("000333", "none"), data.bars("000333", "qfq"), data.bars("000333", "hfq")
    assert qfq.close[-1] == raw.close[-1] == 79.06
    assert hfq.close[0] == raw.close[0] == 38.4
    i = raw.dates.index("2016-05-05")
    assert qfq.close[i] == pytest.approx((32.99 - 1.2) / 1.5)
    assert hfq.close[-1] == pytest.approx(raw.close[-1] * 32.99 / ((32.99 - 1.2) / 1.5))


def test_reading_a_window_adjusts_with_the_whole_history(db):
    load(db, "000333")
    data = MarketData(Market(db))
    window = data.bars("000333", "qfq", "2016-05-04", "2016-05-09")
    assert window.dates == ("2016-05-04", "2016-05-05", "2016-05-06", "2016-05-09")
    assert window.close[1] == pytest.approx(21.1933, abs=1e-4)  # adjusted though the window starts late


def test_long_suspension_leaves_no_invented_bars(db):
    load(db, "000002")
    data = MarketData(Market(db))
    for mode in ("none", "qfq"):
        series = data.bars("000002", mode)
        i = series.dates.index("2015-12-18")
        assert series.dates[i + 1] == "2016-07-04"  # six months with no rows, in every mode
    raw = data.bars("000002", "none", "2015-12-18", "2016-07-05")
    limit_down = raw.bars()[1:]
    assert [b.close for b in limit_down] == [21.99, 19.79]
    assert all(b.open == b.high == b.low == b.close for b in limit_down)  # 一字跌停: no one could sell
    assert raw.close[1] / raw.close[0] - 1 == pytest.approx(-0.10, abs=0.001)
    assert MarketData(Market(db)).bars("000333", "none", "2016-05-17", "2016-05-31").dates == ()


def test_unexplained_gaps_are_reported_as_suspected_ex_rights(db):
    assert [g.date for g in load(db, "000333", actions=False).suspects] == ["2016-05-06"]
    assert [g.date for g in load(db, "000001", actions=False).suspects] == ["2016-06-16"]
    assert load(db, "000002").suspects == []  # limit-down resumption days are within the limit
    assert load(db, "000333").suspects == []  # explained by its action


def test_holding_bought_before_ex_rights_keeps_its_real_value(db, tmp_path):
    # 1,000 shares bought at 30.00 on 2016-04-01; the market data ends on the ex-rights day.
    load(db, "000333", path=_truncated(tmp_path, "000333", "2016-05-06"))
    _state(db, [("000333", "美的集团", 1000, 30.0, "2016-04-01T10:00:00+08:00")])
    account = read_account(Account(db), datetime(2016, 5, 6, 16, tzinfo=SHANGHAI)).account
    v = account.holding("000333")
    assert (v.close.day, v.close.price, v.shares, v.position.dividends) == ("2016-05-06", Decimal("20.35"), 1500, 1200)
    assert v.value == Decimal("30525.00")
    # +1,725 in all (not 1,000 × 20.35 − 30,000 = −9,650): +525 unrealised, +1,200 realised
    assert (v.unrealised_pnl, v.realised_pnl, v.holding_pnl) == (Decimal("525.00"), 1200, Decimal("1725.00"))
    before = 1000 * 32.99  # the holding's value at the close before
    held_move = float(v.value + v.position.dividends) / before - 1
    qfq_move = _change_on(MarketData(Market(db)).bars("000333", "qfq"), "2016-05-06")
    # the holder lost what the market lost that day (≈ −4%), as the adjusted series says;
    # they differ only by the dividend not being reinvested
    assert held_move == pytest.approx(qfq_move, abs=0.002) and -0.05 < held_move < -0.03
    assert v.close.stale_days == 0 and v.weight == 1


def _state(db, rows):
    db["holdings"].insert_all(
        [
            {"symbol": s, "name": n, "short_names": "[]", "shares": q, "cost": c, "role": "core", "updated_at": at}
            for s, n, q, c, at in rows
        ]
    )


def test_holding_recorded_after_the_event_is_not_multiplied_again(db):
    load(db, "000333")
    now = datetime(2026, 11, 30, 16, tzinfo=SHANGHAI)
    _state(
        db, [("000333", "美的集团", 1000, 60.5, "2024-01-02T10:00:00+08:00"), ("000001", "平安银行", 100, 10.0, None)]
    )
    account = read_account(Account(db), now).account
    v = account.holding("000333")
    # the 2024 and 2025 dividends after the stated day are paid on the 1,000 shares, no bonus
    paid = sum(a.cash for a in v.position.actions)
    assert (v.shares, v.close.price) == (1000, Decimal("79.06")) and v.position.bonus_shares == 0
    assert v.unrealised_pnl == 1000 * (Decimal("79.06") - Decimal("60.5")) and v.realised_pnl == paid
    unpriced = account.holding("000001")  # no bars: valued at its cost, marked, never guessed
    assert (unpriced.priced, unpriced.close, unpriced.value) == (False, None, 1000)
    assert v.close.stale_days > 300  # the fixture ends on 2025-05-30
    # every holding counts: 79,060 of 79,060 + 1,000 = 98.75%, not 100%
    c = account.concentration
    assert c.largest_symbol == "000333" and c.largest_weight == Decimal(79060) / Decimal(80060)
    assert c.hhi == (Decimal(79060) / 80060) ** 2 + (Decimal(1000) / 80060) ** 2


@pytest.mark.parametrize("mode", ["qfq", "hfq"])
@pytest.mark.parametrize(
    "start, end", [("2017-01-03", "2019-12-31"), ("2016-05-06", "2016-06-30"), ("2015-06-01", "2016-05-05")]
)
def test_a_window_read_equals_the_same_days_of_the_full_read(db, mode, start, end):
    load(db, "000333")
    data = MarketData(Market(db))
    full = data.bars("000333", mode)
    window = data.bars("000333", mode, start, end)
    lo, hi = full.dates.index(window.dates[0]), full.dates.index(window.dates[-1]) + 1
    assert window.dates == full.dates[lo:hi] and window.dates[0] >= start and window.dates[-1] <= end
    assert window.close == pytest.approx(full.close[lo:hi], rel=1e-12)


def test_cached_valuation_follows_new_market_data(db, tmp_path):
    load(db, "000333", path=_truncated(tmp_path, "000333", "2016-05-05"))
    _state(db, [("000333", "美的集团", 1000, 30.0, "2016-04-01T10:00:00+08:00")])
    reader = Account(db).read
    now = datetime(2026, 11, 30, 16, tzinfo=SHANGHAI)
    first = reader(now)
    assert reader(now) is first  # nothing changed: not recomputed
    held = first.account.holding("000333")
    assert (held.close.day, held.shares) == ("2016-05-05", 1000)
    load(db, "000333")  # newer bars (and the ex-rights day) arrive
    held = reader(now).account.holding("000333")
    assert (held.close.day, held.shares) == ("2025-05-30", 1500)
