"""A conversation as Markdown (`/save`): each turn's question, reply and status."""

from __future__ import annotations

from pixiu_cli.conversation.conversations import beijing_minute
from pixiu_cli.conversation.store import Conversation, Turn
from pixiu_cli.kernel.inert import visible

STATUS_NAMES = {"complete": "完成", "interrupted": "已中断", "error": "出错", "pending": "进行中"}


def conversation_markdown(conversation: Conversation, turns: list[Turn]) -> str:
    lines = [
        f"# {conversation.title or '（无标题）'}",
        "",
        f"对话 {conversation.id} · 模型 {conversation.model or '—'}",
    ]
    for turn in turns:
        status = STATUS_NAMES.get(turn.status, turn.status)
        lines += ["", f"## 第 {turn.seq} 轮 · {status} · {beijing_minute(turn.created_at)}（北京时间）", ""]
        lines += ["**你：**", "", turn.user_text, "", "**pixiu：**", "", turn.reply_text or "（无回复）"]
        if turn.error:
            lines += ["", f"> {turn.error}"]
    return visible("\n".join(lines) + "\n")  # a file opened in a terminal must not act on it
