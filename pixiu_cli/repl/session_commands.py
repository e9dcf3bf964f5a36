"""/model /save /copy /undo: what users of Claude Code, aider and llm expect of a session."""

from __future__ import annotations

import os
from pathlib import Path

from pixiu_cli.errors import os_reason
from pixiu_cli.repl.clipboard import NoClipboard, copy
from pixiu_cli.repl.commands import CommandError, ParsedCommand, registry
from pixiu_cli.repl.state import ReplState
from pixiu_cli.services.conversations import conversation_to_save, undo_last_turn
from pixiu_cli.views.transcript import conversation_markdown


@registry.command("model", "查看或切换本对话使用的模型", "/model [模型名]")
def model_command(state: ReplState, cmd: ParsedCommand) -> None:
    app = state.app
    prices = app.prices
    if not cmd.args:
        priced = "有价格，状态行显示费用" if prices.knows(app.settings.model) else "没有价格，只显示 tokens"
        state.renderer.info(f"当前模型：{app.settings.model}（{priced}）；/model 模型名 切换")
        return
    name = cmd.args[0].strip()
    if len(cmd.args) != 1 or not name.isprintable() or len(name) > 100:
        raise CommandError("用法：/model 模型名（如 deepseek-flash、deepseek-v4-pro）")
    if name == app.settings.model:
        state.renderer.info(f"已经在使用 {name}")
        return
    app.use_model(name)
    if state.conversation_id is not None:
        app.store.set_model(state.conversation_id, name)
    cost = "" if prices.knows(name) else "；这个模型没有价格，状态行只显示 tokens"
    offline = "（离线模式：回答仍来自离线应答器）" if app.settings.offline else ""
    state.renderer.info(
        f"已切换到模型 {name}{offline}：本对话接下来的请求使用它；"
        f"服务商可能仍复用不变的前缀（系统提示、工具），能否命中 pixiu 无法预知，以下一次的状态行为准{cost}"
    )


@registry.command("save", "把当前对话保存为 Markdown 文件（每轮带状态）", "/save [文件]")
def save_command(state: ReplState, cmd: ParsedCommand) -> None:
    if state.conversation_id is None:
        raise CommandError("当前还没有对话可以保存")
    target = Path(os.path.expanduser(cmd.raw_args or f"pixiu-conversation-{state.conversation_id}.md"))
    if target.exists():
        raise CommandError(f"文件已存在：{target}（换一个文件名，不会覆盖）")
    text = conversation_markdown(*conversation_to_save(state.app.store, state.conversation_id))
    try:
        with open(target, "x", encoding="utf-8") as out:
            out.write(text)
    except OSError as exc:
        raise CommandError(f"无法写入 {target}：{os_reason(exc)}") from None
    state.renderer.info(f"已保存对话 {state.conversation_id} 到 {target}")


@registry.command("copy", "把上一条回复复制到剪贴板", "/copy")
def copy_command(state: ReplState, cmd: ParsedCommand) -> None:
    turns = state.app.store.turns(state.conversation_id) if state.conversation_id is not None else []
    replies = [t for t in turns if t.reply_text]
    if not replies:
        raise CommandError("还没有可以复制的回复")
    last = replies[-1]
    try:
        tool = copy(last.reply_text)
    except NoClipboard as exc:
        raise CommandError(f"{exc}；可用 /save 保存为文件") from None
    state.renderer.info(f"已复制第 {last.seq} 轮的回复（{len(last.reply_text)} 字，经 {tool}）")


@registry.command("undo", "撤回上一轮：模型不再看到它（记录保留）", "/undo")
def undo_command(state: ReplState, cmd: ParsedCommand) -> None:
    if cmd.args:
        raise CommandError("用法：/undo（不带参数，撤回上一轮）")
    turn = undo_last_turn(state.app.store, state.conversation_id)
    state.renderer.info(
        f"已撤回第 {turn.seq} 轮：{turn.user_text[:40]}（模型不再看到它，记录仍在 /save 和 /context 中；"
        "这一轮记下的记忆或交易不受影响，需要时用 /forget）"
    )
