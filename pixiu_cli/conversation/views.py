"""What the conversation commands show: the list of conversations, a rename, delete or
restore, the recap of a resumed conversation, the model, a saved or copied turn, /help.

What `pixiu context` and /context show: a stored call, or the request a question would send.

What a question leaves on the screen once services/ask.py returns: how a turn that did not
complete ended, and where a question that could not be stored was kept.

A conversation as Markdown (`/save`): each turn's question, reply and status."""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path

from pixiu_cli.conversation.ask import beijing_minute
from pixiu_cli.conversation.store import Conversation, Turn
from pixiu_cli.kernel.render import Renderer
from pixiu_cli.kernel.safe_text import visible

HELP_KEYS = "Enter 发送；Alt-Enter 或 Ctrl-J 换行；Ctrl-C 中断回复；空输入时连按两次 Ctrl-C 或按 Ctrl-D 退出。"


def conversations_record(listed) -> list[dict] | None:
    if listed.done is not None:
        return None  # a rename, delete or restore: its line
    return [
        {"id": c.id, "title": c.title, "turns": c.turn_count, "updated_at": c.updated_at, "model": c.model}
        for c in listed.found
    ]


def _changed_line(listed) -> str:
    done = listed.done
    title = done.title or "（无标题）"
    if listed.action == "rename":
        return f"已把对话 {done.id} 改名为：{done.title}"
    if listed.action == "delete":
        return f"已删除对话 {done.id}：{title}（记录保留；pixiu sessions --restore {done.id} 恢复）"
    return f"已恢复对话 {done.id}：{title}"


def show_conversations(renderer: Renderer, listed, spell=None) -> None:
    """`pixiu sessions` (with what it changed) and /sessions (the current conversation starred)."""

    if listed.done is not None:
        renderer.info(_changed_line(listed))
        return
    stop = "。" if listed.in_repl else ""
    if not listed.found:
        (renderer.info if listed.in_repl else renderer.line)(
            f"没有含有「{listed.text}」的对话{stop}" if listed.text else f"还没有对话{stop}"
        )
        return
    rows = [
        [
            ("* " if c.id == listed.current else "") + str(c.id),
            beijing_minute(c.updated_at),
            str(c.turn_count),
            c.title or "（无标题）",
        ]
        for c in listed.found
    ]
    title = "最近的对话（/resume ID 继续）" if listed.in_repl else "对话（pixiu chat --resume ID 继续）"
    renderer.table(title, ["ID", "更新时间（北京时间）", "轮数", "标题"], rows)


def show_recap(renderer: Renderer, resumed, model: str) -> None:
    """Which conversation continues, with which model, and its last few turns (/resume,
    chat --resume)."""
    conversation = resumed.conversation
    renderer.info(
        f"已切换到对话 {conversation.id}：{conversation.title or '（无标题）'}"
        f"（{conversation.turn_count} 轮 · 模型 {model}）"
    )
    for turn in resumed.recent_turns:
        renderer.dim(f"#{turn.seq} 你：{turn.user_text[:60]}")
        if turn.reply_text:
            renderer.dim(f"    pixiu：{turn.reply_text[:60]}")


def show_resumed(renderer: Renderer, resumed, spell=None) -> None:
    show_recap(renderer, resumed.resumed, resumed.model)


def show_help(renderer: Renderer, rows, spell=None) -> None:
    renderer.table("命令", ["用法", "说明"], [list(row) for row in rows])
    renderer.dim(HELP_KEYS)


def show_line(renderer: Renderer, line: str, spell=None) -> None:
    renderer.info(line)


def model_line(model) -> str:
    if model.current:
        priced = "有价格，状态行显示费用" if model.priced else "没有价格，只显示 tokens"
        return f"当前模型：{model.name}（{priced}）；/model 模型名 切换"
    if model.unchanged:
        return f"已经在使用 {model.name}"
    cost = "" if model.priced else "；这个模型没有价格，状态行只显示 tokens"
    offline = "（离线模式：回答仍来自离线应答器）" if model.offline else ""
    return (
        f"已切换到模型 {model.name}{offline}：本对话接下来的请求使用它；"
        f"服务商可能仍复用不变的前缀（系统提示、工具），能否命中 pixiu 无法预知，以下一次的状态行为准{cost}"
    )


def show_model(renderer: Renderer, model, spell=None) -> None:
    renderer.info(model_line(model))


def show_saved(renderer: Renderer, saved, spell=None) -> None:
    renderer.info(f"已保存对话 {saved.conversation_id} 到 {saved.path}")


def show_copied(renderer: Renderer, copied, spell=None) -> None:
    turn = copied.turn
    renderer.info(f"已复制第 {turn.seq} 轮的回复（{len(turn.reply_text)} 字，经 {copied.tool}）")


def show_undone(renderer: Renderer, turn, spell=None) -> None:
    renderer.info(
        f"已撤回第 {turn.seq} 轮：{turn.user_text[:40]}（模型不再看到它，记录仍在 /save 和 /context 中；"
        "这一轮记下的记忆或交易不受影响，需要时用 /forget）"
    )


def show_context(renderer: Renderer, shown, spell=None) -> None:
    from pixiu_cli.conversation.presenters import show_request, show_stored_call

    if not hasattr(shown, "request"):
        show_stored_call(renderer, shown.store, shown.conversation_id, turn_seq=shown.turn, mode=shown.mode)
        return
    if shown.mode == "explain":
        renderer.json(shown.info or {})
        return
    if shown.mode == "json":
        renderer.json_text(json.dumps(shown.request["messages"], ensure_ascii=False, indent=2), exact_when_piped=True)
        return
    mode = shown.mode if shown.mode in ("raw", "pretty") else "table"
    show_request(renderer, shown.request, shown.info, title="将要发送的请求（未调用模型）", mode=mode)


def show_cache_report(renderer: Renderer, report, spell=None) -> None:
    from pixiu_cli.conversation.presenters import show_cache

    show_cache(renderer, report)


RETRY_HINT = "输入 /retry 重新生成这一轮（已收到的部分会保留在记录中）。"


def ask_kept_line(line: str, kept: Path) -> str:
    """`pixiu ask`'s one error line when the turn could not be stored: the cause, then where
    the question is and how to send it again."""
    return f"{line.rstrip('。')}。你的问题已保存在 {kept}（pixiu ask - < 该文件 可重发）"


def show_kept(renderer: Renderer, kept: Path | None) -> None:
    """The REPL's line after the cause: the question in unsent/, or put back at the prompt."""
    if kept is not None:
        renderer.dim(f"你的问题已保存在 {kept}（可复制后重新发送）")
    else:
        renderer.dim("你的问题未能保存，已放回输入框。")


def show_interrupted(renderer: Renderer) -> None:
    """Ctrl-C outside the reply's stream (while saving or assembling context)."""
    renderer.info("已中断。")


def show_turn_end(renderer: Renderer, status: str, error: str | None) -> None:
    """A REPL turn that did not complete: how it ended, and that /retry asks it again."""
    if status == "interrupted":
        renderer.info("已中断，收到的部分已保存。")
    elif status == "error":
        renderer.error(error or "未知错误")
    if status != "complete":
        renderer.dim(RETRY_HINT)


@contextmanager
def retried_then_reply(renderer: Renderer, turn):
    """/retry: which turn is asked again, then the new reply streamed below it."""
    renderer.dim(f"重新提问第 {turn.seq} 轮：{turn.user_text[:60]}")
    with renderer.reply() as stream:
        yield stream


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
