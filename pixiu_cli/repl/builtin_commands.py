"""Conversation-level slash commands: /help /exit /new /sessions /resume."""

from __future__ import annotations

from pixiu_cli.repl.commands import CommandError, ParsedCommand, parse_number, registry
from pixiu_cli.repl.state import ExitRepl, ReplState
from pixiu_cli.services.conversations import Resumed, beijing_minute, recent_conversations, resume, resumed_model


@registry.command("help", "列出所有命令")
def help_command(state: ReplState, cmd: ParsedCommand) -> None:
    rows = [[c.usage, c.summary] for c in registry.all()]
    state.renderer.table("命令", ["用法", "说明"], rows)
    state.renderer.dim(
        "Enter 发送；Alt-Enter 或 Ctrl-J 换行；Ctrl-C 中断回复；空输入时连按两次 Ctrl-C 或按 Ctrl-D 退出。"
    )


@registry.command("exit", "退出 pixiu")
def exit_command(state: ReplState, cmd: ParsedCommand) -> None:
    raise ExitRepl()


@registry.command("new", "开始新对话")
def new_command(state: ReplState, cmd: ParsedCommand) -> None:
    state.conversation_id = None
    state.renderer.info("已开始新对话。")


@registry.command("sessions", "列出或搜索最近的对话", "/sessions [数量|文字]")
def sessions_command(state: ReplState, cmd: ParsedCommand) -> None:
    limit, text = 20, None
    if cmd.args:
        limit = parse_number(cmd.args[0]) if len(cmd.args) == 1 else None
        if limit is None:
            limit, text = 20, cmd.raw_args
        elif not limit:
            raise CommandError(f"数量应为正整数：{cmd.args[0]}")
    conversations = recent_conversations(state.app.store, limit, text)
    if not conversations:
        state.renderer.info(f"没有含有「{text}」的对话。" if text else "还没有对话。")
        return
    rows = [
        [
            ("* " if c.id == state.conversation_id else "") + str(c.id),
            beijing_minute(c.updated_at),
            str(c.turn_count),
            c.title or "（无标题）",
        ]
        for c in conversations
    ]
    state.renderer.table("最近的对话（/resume ID 继续）", ["ID", "更新时间（北京时间）", "轮数", "标题"], rows)


@registry.command("resume", "继续之前的对话", "/resume ID")
def resume_command(state: ReplState, cmd: ParsedCommand) -> None:
    conversation_id = parse_number(cmd.args[0]) if len(cmd.args) == 1 else None
    if conversation_id is None:
        raise CommandError("用法：/resume ID（ID 见 /sessions）")
    resumed = resume(state.app.store, conversation_id)
    if resumed is None:
        raise CommandError(f"没有 ID 为 {cmd.args[0]} 的对话，见 /sessions")
    state.conversation_id = resumed.conversation.id
    state.app.use_model(resumed_model(resumed.conversation, state.app.default_model))
    show_recap(state.renderer, resumed, state.app.settings.model)


def show_recap(renderer, resumed: Resumed, model: str) -> None:
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
