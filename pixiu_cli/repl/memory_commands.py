"""/remember, /memory, /memory edit, /forget: the user's side of the memory write path."""

from __future__ import annotations

import re
from datetime import datetime

from pixiu_cli.context.builder import SHANGHAI
from pixiu_cli.repl.commands import CommandError, ParsedCommand, parse_number, registry
from pixiu_cli.repl.state import ReplState

SYMBOL = r"[0-9]{6}"  # ASCII only: re's \d also takes '６００５１９', which no stored code matches
KIND_NAMES = {"view": "观点", "plan": "计划", "rule": "纪律", "decision": "交易", "user_note": "笔记"}


def _split_flags(args: list[str], flags: dict[str, tuple[str, ...] | str]) -> tuple[dict[str, str], list[str]]:
    """--flag VALUE pairs out, the rest kept in order. flags: name → allowed values or a regex."""
    values: dict[str, str] = {}
    rest: list[str] = []
    it = iter(args)
    for arg in it:
        if arg.startswith("--") and arg[2:] in flags:
            values[arg[2:]] = _flag_value(arg, next(it, None), flags[arg[2:]])
        elif _OPTION.fullmatch(arg):
            raise CommandError(f"未知选项 {arg}")
        else:
            rest.append(arg)
    return values, rest


def _flag_value(arg: str, value: str | None, allowed: tuple[str, ...] | str) -> str:
    if value is None:
        raise CommandError(f"{arg} 需要一个值")
    if isinstance(allowed, tuple) and value not in allowed:
        raise CommandError(f"{arg} 只能是 {' / '.join(allowed)}，而不是 {value}")
    if isinstance(allowed, str) and not re.fullmatch(allowed, value):
        raise CommandError(f"{arg} 的值格式不对：{value}")
    return value


_WORD = re.compile(r"\S+")
_OPTION = re.compile(r"--[a-z][a-z-]*")  # "--" alone, "--5%" or an SQL comment are text


def _free_text(raw: str, flags: dict[str, tuple[str, ...] | str]) -> tuple[dict[str, str], str]:
    """Like _split_flags, but the text is kept exactly as typed: quotes, apostrophes, inner
    spacing and line breaks survive (shell-style splitting dropped quotes from a note and
    refused one with a lone apostrophe, e.g. "don't" or '; DROP TABLE …)."""
    values: dict[str, str] = {}
    pieces: list[str] = []
    words = list(_WORD.finditer(raw))
    start = i = 0
    while i < len(words):
        word = words[i].group()
        if word.startswith("--") and word[2:] in flags:
            value = words[i + 1] if i + 1 < len(words) else None
            values[word[2:]] = _flag_value(word, value and value.group(), flags[word[2:]])
            pieces.append(raw[start:words[i].start()])
            start = value.end()
            i += 2
        elif _OPTION.fullmatch(word):
            raise CommandError(f"未知选项 {word}")
        else:
            i += 1
    pieces.append(raw[start:])
    return values, " ".join(p.strip() for p in pieces if p.strip())


def _after_words(raw: str, count: int) -> str:
    """`raw` after its first `count` whitespace-separated words, as typed."""
    words = list(_WORD.finditer(raw))
    return raw[words[count - 1].end():].strip() if len(words) >= count else ""


def _memory_id(text: str) -> int:
    event_id = parse_number(text.lstrip("#"))
    if event_id is None:
        raise CommandError(f"记忆 ID 应为数字：{text}（见 /memory）")
    return event_id


@registry.command("remember", "手动记下一条观点 / 计划 / 纪律",
                  "/remember 文本 [--kind view|plan|rule] [--symbol 代码]")
def remember_command(state: ReplState, cmd: ParsedCommand) -> None:
    flags, text = _free_text(cmd.raw_args, {"kind": ("view", "plan", "rule"), "symbol": SYMBOL})
    if not text:
        raise CommandError("要记住的内容为空：/remember 文本 [--kind view|plan|rule] [--symbol 代码]")
    event, merged = state.app.memory.add_note(note_kind=flags.get("kind", "view"), text=text,
                                              symbol=flags.get("symbol"), source="user",
                                              at=datetime.now(SHANGHAI).isoformat(timespec="seconds"))
    verb = "已合并到已有记忆" if merged else "已记住"
    state.renderer.info(f"{verb} #{event.id}：{KIND_NAMES[event.note_kind]} · {event.text}（/forget {event.id} 可撤销）")


@registry.command("memory", "列出、搜索或修改记忆",
                  "/memory [文字] [--kind K] [--symbol 代码] | /memory edit ID 新文本")
def memory_command(state: ReplState, cmd: ParsedCommand) -> None:
    memory = state.app.memory
    if cmd.args and cmd.args[0] == "edit":
        if len(cmd.args) < 2:
            raise CommandError("用法：/memory edit ID 新文本")
        event_id = _memory_id(cmd.args[1])
        event = memory.get(event_id)
        if event is None:
            raise CommandError(f"没有 ID 为 {event_id} 的记忆（见 /memory）")
        new_text = _after_words(cmd.raw_args, 2)
        if not new_text and state.edit_text is not None:
            new_text = state.edit_text(event.text).strip()
        if not new_text:
            raise CommandError("新文本为空，记忆未修改")
        memory.edit(event_id, new_text)
        state.renderer.info(f"已修改 #{event_id}：{new_text}")
        return
    flags, words = _split_flags(cmd.args, {"kind": ("view", "plan", "rule", "decision"), "symbol": SYMBOL})
    events = memory.search(text=" ".join(words) or None, kind=flags.get("kind"), symbol=flags.get("symbol"), limit=50)
    if not events:
        state.renderer.info("没有找到记忆。用 /remember 文本 手动添加。")
        return
    rows = [[str(e.id), KIND_NAMES.get(e.note_kind or e.kind, e.kind), e.symbol or "—", e.created_at[:10],
             {"user": "手动", "model": "对话", "import": "导入"}.get(e.source or "", e.source or "—"),
             str(e.inject_count), e.text] for e in events]
    state.renderer.table(f"记忆（{len(events)} 条，/forget ID 删除）",
                         ["ID", "类型", "标的", "日期", "来源", "注入次数", "内容"], rows)


@registry.command("forget", "删除一条记忆", "/forget ID")
def forget_command(state: ReplState, cmd: ParsedCommand) -> None:
    if len(cmd.args) != 1:
        raise CommandError("用法：/forget ID（ID 见 /memory）")
    event_id = _memory_id(cmd.args[0])
    event = state.app.memory.forget(event_id, datetime.now(SHANGHAI).isoformat(timespec="seconds"))
    if event is None:
        raise CommandError(f"没有 ID 为 {event_id} 的记忆（见 /memory）")
    state.renderer.info(f"已删除 #{event_id}：{event.text}")
