"""/remember, /memory, /memory edit, /forget: the user's side of the memory write path."""

from __future__ import annotations

import re

from pixiu_cli.domain.vocabulary import AUTHOR_NAMES, MEMORY_KIND_NAMES, NOTE_KINDS
from pixiu_cli.repl.commands import CommandError, ParsedCommand, registry
from pixiu_cli.repl.state import ReplState
from pixiu_cli.services import notes, trades
from pixiu_cli.services.memory_search import search_memories
from pixiu_cli.store.analytics import AnalyticsStore
from pixiu_cli.store.memory import MemoryRef
from pixiu_cli.views.notices import forget_notice, pin_notice, replacement_notice, undo_notice

SYMBOL = r"[0-9]{6}"  # ASCII only: re's \d also takes '６００５１９', which no stored code matches


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
            pieces.append(raw[start : words[i].start()])
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
    return raw[words[count - 1].end() :].strip() if len(words) >= count else ""


def _resolve(state: ReplState, text: str) -> MemoryRef:
    return state.app.memory.resolve(text)


@registry.command(
    "remember",
    "手动记下一条观点 / 计划 / 纪律",
    "/remember 文本 [--kind view|plan|rule] [--symbol 代码]（不写 --symbol 时从文字里认出股票）",
)
def remember_command(state: ReplState, cmd: ParsedCommand) -> None:
    flags, text = _free_text(cmd.raw_args, {"kind": NOTE_KINDS, "symbol": SYMBOL})
    if not text:
        raise CommandError("要记住的内容为空：/remember 文本 [--kind view|plan|rule] [--symbol 代码]")
    request = notes.NewNote(kind=flags.get("kind", "view"), text=text, symbol=flags.get("symbol"), source="user")
    state.renderer.info(notes.note_notice(notes.add_note(state.app.memory.db, request, state.stamp())))


@registry.command(
    "memory",
    "列出、搜索或修改记忆（笔记 n… 和交易 d…）",
    "/memory [文字|代码|名称|纪律…] [--kind K] [--symbol 代码] | /memory edit ID 新文本 | /memory pin|unpin ID"
    " | /memory replace 新计划ID | /memory accept 提议ID",
)
def memory_command(state: ReplState, cmd: ParsedCommand) -> None:
    if cmd.args and cmd.args[0] == "accept":
        _accept(state, cmd)
        return
    if cmd.args and cmd.args[0] == "edit":
        _edit(state, cmd)
        return
    if cmd.args and cmd.args[0] == "replace":
        _replace(state, cmd)
        return
    if cmd.args and cmd.args[0] in ("pin", "unpin"):
        _pin(state, cmd)
        return
    flags, words = _split_flags(cmd.args, {"kind": (*NOTE_KINDS, "decision"), "symbol": SYMBOL})
    entries = search_memories(
        state.app.memory.db, " ".join(words), kind=flags.get("kind"), symbol=flags.get("symbol"), limit=50
    )
    if not entries:
        state.renderer.info("没有找到记忆。用 /remember 文本 手动添加。")
        return
    rows = [
        [
            e.ref,
            _kind_cell(e),
            e.symbol or "—",
            e.created_at[:10],
            AUTHOR_NAMES.get(e.author, e.author),
            str(e.inject_count),
            e.text,
        ]
        for e in entries
    ]
    state.renderer.table(
        f"记忆（{len(entries)} 条，/forget ID 撤销或删除）",
        ["ID", "类型", "标的", "日期", "作者", "注入次数", "内容"],
        rows,
    )


def _kind_cell(e) -> str:
    name = MEMORY_KIND_NAMES.get(e.kind, e.kind)
    if e.replaced_by:
        return f"{name}（已被 n{e.replaced_by} 替换）"
    if e.replace_offered_by:
        return f"{name}（待确认由 n{e.replace_offered_by} 替换）"
    return f"{name}·置顶" if e.pinned else name


def _pin(state: ReplState, cmd: ParsedCommand) -> None:
    if len(cmd.args) != 2:
        raise CommandError(f"用法：/memory {cmd.args[0]} ID（ID 见 /memory，如 n12）")
    state.renderer.info(pin_notice(notes.pin_note(state.app.memory.db, cmd.args[1], cmd.args[0] == "pin")))


def _accept(state: ReplState, cmd: ParsedCommand) -> None:
    if len(cmd.args) != 2:
        raise CommandError("用法：/memory accept 提议ID（模型提议的确认里给出，如 n13；见 /memory 的作者一栏）")
    state.renderer.info(notes.accept_notice(notes.accept_proposal(state.app.memory.db, cmd.args[1])))


def _replace(state: ReplState, cmd: ParsedCommand) -> None:
    if len(cmd.args) != 2:
        raise CommandError("用法：/memory replace 新计划ID（记下计划时的确认里给出，如 n13）")
    state.renderer.info(replacement_notice(notes.accept_replacement(state.app.memory.db, cmd.args[1])))


def _edit(state: ReplState, cmd: ParsedCommand) -> None:
    memory = state.app.memory
    if len(cmd.args) < 2:
        raise CommandError("用法：/memory edit ID 新文本")
    ref = _resolve(state, cmd.args[1])
    if ref.kind == "d":
        raise CommandError(f"交易记录 #{ref} 不能修改：用 /forget {ref} 撤销（持仓会恢复），再重新记录")
    event = memory.get(ref.id)
    new_text = _after_words(cmd.raw_args, 2)
    if not new_text and state.edit_text is not None:
        new_text = state.edit_text(event.text).strip()
    if not new_text:
        raise CommandError("新文本为空，记忆未修改")
    if not memory.edit(ref.id, new_text, state.stamp()):
        raise CommandError(f"没有 ID 为 {ref} 的记忆（见 /memory）")
    state.renderer.info(f"已修改 #{ref}：{new_text}")


@registry.command("forget", "撤销一条记忆：删除笔记、撤销合并，或撤销一笔交易（持仓恢复）", "/forget ID")
def forget_command(state: ReplState, cmd: ParsedCommand) -> None:
    if len(cmd.args) != 1:
        raise CommandError("用法：/forget ID（ID 见 /memory，如 n12 或 d5；预警规则如 a3）")
    rule = re.fullmatch(r"#?[aＡａA]([0-9]+)", cmd.args[0].strip())
    if rule:
        _remove_alert_rule(state, int(rule.group(1)))
        return
    ref = _resolve(state, cmd.args[0])
    if ref.kind == "d":
        _undo_trade(state, ref)
        return
    forgotten = state.app.memory.forget(ref.id, state.stamp())
    if forgotten is None:
        raise CommandError(f"没有 ID 为 {ref} 的记忆（见 /memory）")
    state.renderer.info(forget_notice(str(ref), forgotten))


def _remove_alert_rule(state: ReplState, rule_id: int) -> None:
    if not AnalyticsStore(state.app.memory.db).remove_rule(rule_id, state.stamp()):
        raise CommandError(f"没有预警规则 a{rule_id}（见 /alert）")
    state.renderer.info(f"已撤销预警 a{rule_id}")


def _undo_trade(state: ReplState, ref: MemoryRef) -> None:
    undone = trades.undo_trade(state.app.memory.db, ref.id, state.stamp(), state.app.settings.cost_method)
    if undone is None:
        raise CommandError(f"没有 ID 为 {ref} 的记忆（见 /memory）")
    state.renderer.info(undo_notice(str(ref), undone))
