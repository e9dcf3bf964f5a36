"""The memory's plain types and names, for the areas that show or cite a memory without
writing one: the typed ids the user sees (`n<id>` a note, `d<id>` a decision), a trade as a
memory's text, and what the block withdrew.

When a new plan restates an older one: the same stock, the same action (加仓, 减仓, 止损,
止盈…), other numbers ("回踩30加仓", later "回踩28加仓"). Only the newer one is in force."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pixiu_cli.kernel.store.rows import number
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


# Checked in order: the longer, more specific words first (止损 before 卖, 加仓 before 买).
_ACTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("stop_loss", ("止损",)),
    ("take_profit", ("止盈",)),
    ("clear", ("清仓", "离场")),
    ("reduce", ("减仓", "卖出", "减持", "卖")),
    ("add", ("加仓", "补仓", "建仓", "买入", "抄底", "低吸", "增持", "买")),
)
_NUMBER = re.compile(r"[0-9０-９]+(?:[.．][0-9０-９]+)?")


def plan_action(text: str) -> str | None:
    """The action a plan is about, or None when it names none."""
    for action, words in _ACTIONS:
        if any(word in text for word in words):
            return action
    return None


def plan_numbers(text: str) -> tuple[str, ...]:
    return tuple(_NUMBER.findall(text))


def restates(older: str, newer: str) -> bool:
    """`newer` is the same plan as `older` with other numbers (prices, shares, percentages)."""
    action = plan_action(newer)
    if action is None or action != plan_action(older):
        return False
    new_numbers, old_numbers = plan_numbers(newer), plan_numbers(older)
    return bool(new_numbers) and bool(old_numbers) and new_numbers != old_numbers
