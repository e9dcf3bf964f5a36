"""The memory's plain types and names, for the areas that show or cite a memory without
writing one: the typed ids the user sees (`n<id>` a note, `d<id>` a decision), a trade as a
memory's text, and what the block withdrew."""

from __future__ import annotations

from dataclasses import dataclass

from pixiu_cli.kernel.db.rows import number
from pixiu_cli.kernel.vocabulary import side_name
from pixiu_cli.market.plausible import price_problem, shares_problem


def note_ref(event_id: int) -> str:
    return f"n{event_id}"


def decision_ref(decision_id: int) -> str:
    return f"d{decision_id}"


@dataclass(frozen=True)
class Withdrawal:
    ref: str  # n3 | d5
    action: str  # deleted | edited | undone | replaced
    old_text: str | None
    new_text: str | None = None  # edited: the new text; replaced: the ref of the plan in force


def trade_text(side: str, symbol: str, quantity: float, price: float, reason: str | None) -> str:
    checks = ((quantity, shares_problem), (price, price_problem))
    shown = [f"{n:g}" if (n := number(v)) is not None and n >= 0 and not bad(n) else "无效值" for v, bad in checks]
    return f"{side_name(side)} {symbol} {shown[0]} 股 @ {shown[1]}" + (f"，理由：{reason}" if reason else "")
