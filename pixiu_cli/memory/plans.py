"""When a new plan restates an older one: the same stock, the same action (加仓, 减仓, 止损,
止盈…), other numbers ("回踩30加仓", later "回踩28加仓"). Only the newer one is in force."""

from __future__ import annotations

import re

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
