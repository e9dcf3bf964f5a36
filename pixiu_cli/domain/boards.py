"""Boards and daily price limits: what a normal day's move can be, so a bigger gap with no
corporate action to explain it is reported as 疑似除权除息."""

from __future__ import annotations

CHINEXT_20PCT_FROM = "2020-08-24"  # ChiNext registration reform: ±20% from this day


def board_for(symbol: str) -> str:
    """main | chinext | star | bse, from the code's prefix."""
    if symbol.startswith(("688", "689")):
        return "star"
    if symbol.startswith(("300", "301")):
        return "chinext"
    if symbol.startswith(("43", "83", "87", "88", "92")):
        return "bse"
    return "main"


def daily_limit(symbol: str, day: str, is_st: bool = False) -> float:
    """The board's daily price limit on `day` as a fraction (0.10 for ±10%)."""
    board = board_for(symbol)
    if board == "bse":
        return 0.30
    if board == "star" or (board == "chinext" and day >= CHINEXT_20PCT_FROM):
        return 0.20
    return 0.05 if is_st else 0.10
