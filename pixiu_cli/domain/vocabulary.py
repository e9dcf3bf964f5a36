"""The stored vocabulary: note kinds, memory kinds and trade sides with their Chinese labels,
and the marker that opens and closes a context block in every stored and sent request.
Defined once here, in the lowest layer that stores them (the offline provider reads the
marker too, and may not import context/); every other layer imports them."""

from __future__ import annotations

NOTE_KINDS = ("view", "plan", "rule")
NOTE_KIND_NAMES = {"view": "观点", "plan": "计划", "rule": "纪律"}
# How the block labels the user's own notes: theirs, not a pundit's 情绪观点. A rule is a
# constraint the model checks advice against; a plan or a view is the user's own reading.
NOTE_LAYER_NAMES = {"view": "用户观点", "plan": "用户计划", "rule": "用户纪律"}
NOTE_NAME = "笔记"  # a note without a kind, and the memory kind `user_note`
# Every kind a memory can be listed under: a note's own kind, or the event kind.
MEMORY_KIND_NAMES = {**NOTE_KIND_NAMES, "decision": "交易", "user_note": NOTE_NAME}

# A user message that starts with CONTEXT_OPEN is a context block, not the user's words.
CONTEXT_OPEN = "[上下文信息]"
CONTEXT_CLOSE = "[/上下文信息]"

SIDES = ("buy", "sell")
SIDE_NAMES = {"buy": "买入", "sell": "卖出"}


def side_name(side: str) -> str:
    """买入 / 卖出 for a stored side (an unknown value is shown as it is)."""
    return SIDE_NAMES.get(side, side)


# Where a note or a decision came from when it was made in conversation (/remember, tools):
# imports never change or drop these.
CONVERSATION_SOURCES = ("user", "model")

# A user message that starts with BRIEF_OPEN asks for the daily brief (`pixiu brief`, /brief):
# the offline reading model writes one from the facts that follow it.
BRIEF_OPEN = "[每日简报]"
BRIEF_FACTS = "【事实（pixiu 本地计算，不是模型生成）】"
CONCLUSION_MARK = "结论："
