"""Gaps that look like an ex-rights day nobody told us about (疑似除权除息): the open falls
below the previous close by more than the board's daily limit allows, and no stored action
has that ex-date. Only falls are checked — an ex-rights day always lowers the price, while a
new listing's first days may legitimately rise far beyond any limit. A small cash dividend
moves the price less than the limit and cannot be seen this way."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pixiu_cli.domain.boards import daily_limit
from pixiu_cli.domain.market import Bar, CorporateAction

TOLERANCE = 0.005  # limit prices are rounded to the fen: −10.04% is still a limit-down open


@dataclass(frozen=True)
class SuspectGap:
    date: str
    prev_date: str
    prev_close: float
    open: float

    @property
    def change(self) -> float:
        return self.open / self.prev_close - 1


def suspect_gaps(symbol: str, bars: Sequence[Bar], actions: Sequence[CorporateAction]) -> list[SuspectGap]:
    explained = {a.ex_date for a in actions}
    out = []
    for prev, bar in zip(bars, bars[1:]):
        # a fall within 5% is inside every board's limit: skip the limit lookup
        if prev.close <= 0 or bar.open >= prev.close * 0.95 or bar.date in explained:
            continue
        limit = daily_limit(symbol, bar.date, bar.is_st or prev.is_st)
        if bar.open / prev.close - 1 < -(limit + TOLERANCE):
            out.append(SuspectGap(bar.date, prev.date, prev.close, bar.open))
    return out
