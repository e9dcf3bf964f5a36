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
# What a user says when they report a trade of each side (a word of it must be in their message).
SIDE_WORDS = {
    "buy": ("买", "加仓", "补仓", "建仓", "增持", "抄底", "低吸", "上车"),
    "sell": ("卖", "抛", "减仓", "清仓", "止损", "止盈", "减持", "割肉", "离场", "下车"),
}


def side_name(side: str) -> str:
    """买入 / 卖出 for a stored side (an unknown value is shown as it is)."""
    return SIDE_NAMES.get(side, side)


# Where a note or a decision came from when it was made in conversation (/remember, tools):
# imports never change or drop these.
CONVERSATION_SOURCES = ("user", "model")

# Who wrote a memory (memory_events.author), apart from where it came from (source): the
# user typed it; the model wrote it in the user's own words of that turn; a document the
# user imported carried it; or the model proposed it, and it is not the user's until the
# user accepts it (/memory accept).
AUTHOR_USER, AUTHOR_MODEL, AUTHOR_IMPORT, AUTHOR_PROPOSAL = "user", "model_from_user", "import", "proposal"
AUTHORS = (AUTHOR_USER, AUTHOR_MODEL, AUTHOR_IMPORT, AUTHOR_PROPOSAL)
USERS_OWN = (AUTHOR_USER, AUTHOR_MODEL, AUTHOR_IMPORT)  # what the block shows as the user's
PROPOSAL_NAME = "模型提议（未经用户确认）"
AUTHOR_NAMES = {
    AUTHOR_USER: "用户",
    AUTHOR_MODEL: "模型记录（用户原话）",
    AUTHOR_IMPORT: "导入",
    AUTHOR_PROPOSAL: PROPOSAL_NAME,
}


def decision_author(source: str | None) -> str:
    """Who wrote a recorded trade, from where it came: the model records a trade only when the
    user's words of that turn state it, so a trade is never a proposal."""
    return {"user": AUTHOR_USER, "model": AUTHOR_MODEL}.get(source or "", AUTHOR_IMPORT)


# A user message that starts with BRIEF_OPEN asks for the daily brief (`pixiu brief`, /brief):
# the offline reading model writes one from the facts that follow it.
BRIEF_OPEN = "[每日简报]"
BRIEF_FACTS = "【事实（pixiu 本地计算，不是模型生成）】"
CONCLUSION_MARK = "结论："
