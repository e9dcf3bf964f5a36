"""A position resumed from a checkpoint equals the whole derivation, Decimal for Decimal, on
randomized ledgers: buys, sales (more than held too), bonus shares, dividends and their
taxes, corporate actions a statement booked or did not, fills added after the checkpoint
(later than its day by more than a booked action's window, as the store's triggers allow)
and actions after it."""

from __future__ import annotations

from datetime import date, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from pixiu_cli.account.ledger import BOOKED_AFTER, checkpointed, position, resume_fills_from
from pixiu_cli.account.model import BONUS, BUY, DIVIDEND, DIVIDEND_TAX, SELL, Fill
from pixiu_cli.market.bars import CorporateAction

START = date(2024, 1, 2)
SYMBOL = "600036"


def _day(n: int) -> str:
    return (START + timedelta(days=n)).isoformat()


@st.composite
def fills(draw, first: int, last: int, prefix: str) -> list[Fill]:
    out = []
    for i in range(draw(st.integers(0, 25))):
        kind = draw(st.sampled_from([BUY, BUY, SELL, SELL, BONUS, DIVIDEND, DIVIDEND_TAX]))
        day = _day(draw(st.integers(first, last)))
        qty = float(draw(st.integers(0, 30)) * 100) if kind in (BUY, SELL, BONUS) else 0.0
        price = draw(st.decimals("1.00", "99.99", places=2)) if kind in (BUY, SELL) else 0
        amount = round(qty * float(price), 2) if kind in (BUY, SELL) else float(draw(st.integers(1, 99_999))) / 100
        fees = float(draw(st.integers(0, 999))) / 100
        time = draw(st.sampled_from([None, "09:31:00", "14:00:00"]))
        out.append(
            Fill(f"{prefix}{i}", day, time, kind, SYMBOL, "招商银行", qty, float(price), amount, fees, None, None)
        )
    return sorted(out, key=lambda f: (f.day, f.time or ""))


@st.composite
def actions(draw, first: int, last: int) -> list[CorporateAction]:
    out = {}
    for _ in range(draw(st.integers(0, 5))):
        ex = _day(draw(st.integers(first, last)))
        cash = draw(st.sampled_from([0.0, 0.12, 0.5, 1.234]))
        shares = draw(st.sampled_from([0.0, 0.0, 0.2, 0.3]))
        method = draw(st.sampled_from(["cash_shares", "cash_shares", "factor"]))
        out[ex] = CorporateAction(SYMBOL, ex, cash, shares, None, "import", method)
    return sorted(out.values(), key=lambda a: a.ex_date)


@settings(max_examples=300, deadline=None)
@given(cut=st.integers(0, 200), data=st.data())
def test_resumed_from_a_checkpoint_equals_the_whole_derivation(cut, data):
    gap = BOOKED_AFTER.days + 1
    early = data.draw(fills(0, cut, "e"))
    late = data.draw(fills(cut + gap, cut + gap + 200, "l"))
    known = data.draw(actions(0, cut))
    later = data.draw(actions(cut + 1, cut + gap + 250))
    until = _day(data.draw(st.integers(cut, cut + gap + 260)))
    _, mark = checkpointed(SYMBOL, early, actions=known, until=until)
    whole = position(SYMBOL, early + late, actions=known + later, until=until)
    if mark is None:
        assert not early
        return
    tail = [f for f in early + late if f.day >= resume_fills_from(mark)]
    resumed = position(SYMBOL, tail, actions=known + later, until=until, resume=mark)
    assert resumed == whole and repr(resumed) == repr(whole)


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_the_checkpoint_of_a_resumed_derivation_resumes_too(data):
    """Checkpoints chain: one written after resuming is as good as one from the start."""
    gap = BOOKED_AFTER.days + 1
    a = data.draw(fills(0, 60, "a"))
    b = data.draw(fills(60 + gap, 120 + gap, "b"))
    c = data.draw(fills(120 + 2 * gap, 200 + 2 * gap, "c"))
    acts = data.draw(actions(0, 260 + 2 * gap))
    until = _day(300 + 2 * gap)
    _, first = checkpointed(SYMBOL, a, actions=acts, until=until)
    if first is None:
        return
    tail = [f for f in a + b if f.day >= resume_fills_from(first)]
    _, second = checkpointed(SYMBOL, tail, actions=acts, until=until, resume=first)
    rest = [f for f in a + b + c if f.day >= resume_fills_from(second)]
    assert position(SYMBOL, rest, actions=acts, until=until, resume=second) == position(
        SYMBOL, a + b + c, actions=acts, until=until
    )
