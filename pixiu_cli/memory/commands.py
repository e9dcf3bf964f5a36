"""The memory's commands, the same functions for `pixiu X` and `/X`: memory (list, accept,
replace, pin, unpin; edit in the REPL alone), remember, forget, alert (list, add, remove) and
alias. Each calls the memory's use case and shows the result through memory/views.py."""

from __future__ import annotations

import re
from dataclasses import dataclass

import click

from pixiu_cli.commands import common
from pixiu_cli.commands.params import (
    Argument,
    Choice,
    CommandError,
    DefaultGroup,
    Int,
    Kind,
    Number,
    StockCode,
    Text,
    argument,
    demo_option,
    group,
    json_option,
)
from pixiu_cli.conversation.selection import aliases
from pixiu_cli.kernel.vocabulary import NOTE_KINDS
from pixiu_cli.memory import views
from pixiu_cli.memory.alerts import (
    DEFAULT_COOLDOWN_DAYS,
    MAX_COOLDOWN_DAYS,
    SOURCE_BY_HAND,
    NewAlert,
    add_alert,
    parse_rule_id,
)
from pixiu_cli.memory.changes import edit_memory, forget_memory, search_memories
from pixiu_cli.memory.notes import NewNote, accept_proposal, accept_replacement, add_note, pin_note

_WORD = re.compile(r"\S+")
_OPTION = re.compile(r"--[a-z][a-z-]*")  # "--" alone, "--5%" or an SQL comment are text


def _stamp(ws) -> str:
    return ws.now().isoformat(timespec="seconds")


def _show(view, result, document=None) -> None:
    """The result through its view; `document`: its --json record instead, when there is one."""
    if document is not None:
        common.shown().json(document)
    else:
        common.finish(view(common.shown(), result, common.spell))


class TypedText(click.Command):
    """A command whose free text the REPL reads exactly as typed (quotes, line breaks, words
    like "--5%"): there a word click does not know stays in the text, and the command reads
    its text from the typed line (`common.typed_args`); the command line refuses it as before."""

    reads_typed = True

    def parse_args(self, ctx, args):
        ctx.ignore_unknown_options = ctx.find_root().obj is not None
        return super().parse_args(ctx, args)


def _typed_text(words: tuple[str, ...], valued: tuple[str, ...], skip: int = 0) -> str | None:
    """The free text: on the command line the words joined by one space; in the REPL each
    unbroken stretch of the typed line that is not an option (or one of the `skip` leading
    words) verbatim, stretches joined by one space."""
    raw = common.typed_args()
    if raw is None:
        return " ".join(words) or None
    spans = list(_WORD.finditer(raw))
    loose, i = [], 0
    while i < len(spans):
        word = spans[i].group()
        if word in valued:
            i += 2
            continue
        if _OPTION.fullmatch(word):
            raise CommandError(f"未知选项 {word}")
        loose.append(i)
        i += 1
    pieces, start, last = [], None, None
    for i in loose[skip:]:
        if start is not None and i != last + 1:
            pieces.append(raw[spans[start].start() : spans[last].end()])
            start = None
        start = i if start is None else start
        last = i
    if start is not None:
        pieces.append(raw[spans[start].start() : spans[last].end()])
    return " ".join(pieces) or None


class MemoryGroup(DefaultGroup):
    """`memory`: `edit` is the REPL's alone (it edits in place at the prompt); on the command
    line the word is the default subcommand's, as any other word no subcommand takes."""

    repl_only = ("edit",)

    def _on_repl(self, ctx) -> bool:
        return ctx is not None and ctx.find_root().obj is not None

    def list_commands(self, ctx):
        return [n for n in self.commands if self._on_repl(ctx) or n not in self.repl_only]

    def get_command(self, ctx, name):
        if name in self.repl_only and not self._on_repl(ctx):
            return None
        return super().get_command(ctx, name)

    def parse_args(self, ctx, args):
        if args and args[0] in self.repl_only and not self._on_repl(ctx):
            args = [self.default, *args]
        return super().parse_args(ctx, args)


memory = MemoryGroup(
    "memory", help="记忆：列出、搜索笔记和交易（含作者），采纳模型提议，确认计划替换，置顶与修改。", default="list"
)


def _words(name: str, kind: Kind, help: str):
    """A positional parameter taking every remaining word (a tuple, empty when none)."""
    return click.argument(name, cls=Argument, type=kind, help=help, nargs=-1, metavar=name.upper())


@memory.command("list", help="列出或搜索记忆（笔记 n… 和交易 d…）：ID、类型、标的、日期、作者、注入次数和内容。")
@_words("query", Text("文字"), "文字、代码、名称或类型（纪律、计划、观点、交易）")
@click.option(
    "--kind", type=Choice((*NOTE_KINDS, "decision")), metavar="KIND", help="只看一类：view | plan | rule | decision"
)
@click.option("--symbol", type=StockCode(), metavar="SYMBOL", help="只看这只股票")
@json_option
@demo_option
def memory_list(query, kind, symbol, as_json: bool, demo: bool) -> None:
    found = search_memories(common.on_workspace().memory, " ".join(query) or None, kind=kind, symbol=symbol, limit=200)
    _show(views.show_memories, found, views.memories_record(found) if as_json else None)


def _named(name: str, kind: Kind, help: str):
    """A required positional parameter the command line names by its placeholder when that is
    ASCII ("ID", "aN"), else by its name, as before."""
    metavar = kind.shown if kind.shown.isascii() else name.upper()
    return click.argument(name, cls=Argument, type=kind, help=help, required=True, metavar=metavar)


def _by_id(metavar: str):
    return _named("ref", Text(metavar, complete="memory"), f"{metavar}（见 memory list 的 ID 一栏，如 n13）")


@memory.command(
    "accept", help="采纳一条模型提议：笔记之后算作你自己的观点、计划或纪律；交易或预警此时才记录（只记一次）。"
)
@_by_id("提议ID")
@demo_option
def memory_accept(ref: str, demo: bool) -> None:
    ws = common.on_workspace()
    done = accept_proposal(ws.memory, ref, _stamp(ws), ws.settings.commission)
    _show(views.show_accepted, done)


@memory.command("replace", help="用新计划替换它所重述的旧计划（撤销新计划时旧计划恢复）。")
@_by_id("新计划ID")
@demo_option
def memory_replace(ref: str, demo: bool) -> None:
    _show(views.show_replaced, accept_replacement(common.on_workspace().memory, ref))


@memory.command("pin", help="置顶一条笔记：不受天数窗口限制，每轮都注入。")
@_by_id("ID")
def memory_pin(ref: str) -> None:
    _show(views.show_pinned, pin_note(common.on_workspace().memory, ref, True))


@memory.command("unpin", help="取消置顶。")
@_by_id("ID")
def memory_unpin(ref: str) -> None:
    _show(views.show_pinned, pin_note(common.on_workspace().memory, ref, False))


MEMORY_ID = Text("ID", complete="memory")


@memory.command("edit", cls=TypedText, help="修改一条笔记的文字（不写新文本时在原文上编辑）。")
@_named("ref", MEMORY_ID, "笔记 ID，如 n12")
@_words("text", Text("新文本"), "新文本")
def memory_edit(ref: str, text) -> None:
    ws = common.on_workspace()
    typed = _typed_text(text, (), skip=2)  # the line's first words: "edit" and the ID
    state = common.repl_state()
    edited = edit_memory(ws.memory, ref, typed, _stamp(ws), state.edit_text if state is not None else None)
    _show(views.show_edited, edited)


@click.command("remember", cls=TypedText, help="手动记下一条观点 / 计划 / 纪律（不写 --symbol 时从文字里认出股票）。")
@_words("text", Text("文本"), "要记住的内容")
@click.option(
    "--kind", type=Choice(NOTE_KINDS), default="view", metavar="KIND", help="view 观点 | plan 计划 | rule 纪律"
)
@click.option("--symbol", type=StockCode(), metavar="SYMBOL", help="关于哪只股票")
@demo_option
def remember(text, kind: str, symbol, demo: bool) -> None:
    ws = common.on_workspace()
    typed = _typed_text(text, ("--kind", "--symbol"))
    note = NewNote(kind=kind, text=typed or "", symbol=symbol, source="user")
    _show(views.show_note, add_note(ws.memory, note, _stamp(ws)))


@click.command("forget", help="撤销一条记忆：删除笔记、撤销合并，或撤销一笔交易（持仓恢复）；预警规则如 a3。")
@_named("ref", MEMORY_ID, "ID：笔记如 n12，交易如 d5，预警规则如 a3")
@demo_option
def forget(ref: str, demo: bool) -> None:
    ws = common.on_workspace()
    _show(views.show_forgotten, forget_memory(ws.memory, ref, _stamp(ws)))


# Price alerts.

CONDITIONS = (  # (option, parameter, the rule's kind, help)
    ("--below", "below", "below", "收盘跌破该价格（元）"),
    ("--above", "above", "above", "收盘突破该价格（元）"),
    ("--change-pct", "change_pct", "change_pct", "单日涨跌幅达到 N%"),
    ("--drawdown-from-cost", "drawdown", "drawdown_from_cost", "较持仓成本回撤达到 N%"),
)


class RuleId(Kind):
    """An alert rule's id: a3 or 3."""

    name = "rule"
    shown = "aN"

    def read(self, word, label):
        rule_id = parse_rule_id(word)
        if rule_id is None:
            raise CommandError(f"预警编号应形如 a3 或 3，而不是 {word!r}")
        return rule_id


alert = group("alert", "价格预警：收盘价穿越、单日涨跌幅、较成本回撤（导入或同步日线后检查）。", default="list")


@alert.command("list", help="列出预警规则和最近触发的预警。")
@json_option
def alert_list(as_json: bool) -> None:
    rules = common.on_workspace().market.analytics.rules()
    _show(views.show_rules, rules, views.rules_record(rules) if as_json else None)


def _conditions(command):
    for flag, name, _, help in reversed(CONDITIONS):
        shown = "P" if name in ("below", "above") else "N"
        kind = Number(shown, positive=True, label="阈值")
        command = click.option(flag, name, type=kind, metavar=shown, help=help)(command)
    return command


@alert.command("add", help="添加一条预警规则（检查此后导入或同步的收盘价）。")
@argument("symbol", StockCode(), "股票代码")
@_conditions
@click.option(
    "--cooldown",
    type=Int(0, MAX_COOLDOWN_DAYS, "天数"),
    default=DEFAULT_COOLDOWN_DAYS,
    metavar="COOLDOWN",
    help="触发后静默的交易日数",
)
def alert_add(symbol: str, below, above, change_pct, drawdown, cooldown: int) -> None:
    given = {"below": below, "above": above, "change_pct": change_pct, "drawdown": drawdown}
    chosen = [(kind, given[name]) for _, name, kind, _ in CONDITIONS if given[name] is not None]
    if len(chosen) != 1:
        raise CommandError("请给出且只给出一个条件：--below、--above、--change-pct 或 --drawdown-from-cost")
    ((kind, threshold),) = chosen
    ws = common.on_workspace()
    added = add_alert(ws.memory, NewAlert(symbol, kind, float(threshold), SOURCE_BY_HAND, cooldown), _stamp(ws))
    _show(views.show_added, added)


@alert.command("remove", help="删除一条预警规则。")
@_named("rule_id", RuleId(), "预警编号，如 a3")
def alert_remove(rule_id: int) -> None:
    ws = common.on_workspace()
    if not ws.market.analytics.remove_rule(rule_id, _stamp(ws)):
        raise CommandError(f"没有预警规则 a{rule_id}")
    _show(views.show_removed, rule_id)


# The user's names for stocks.


@dataclass(frozen=True)
class AliasOutcome:
    action: str  # "list" | "remove" | "add"
    rows: list  # selection.aliases.AliasRow: every alias listed, or the one added
    alias: str | None = None


def _master(ws):
    """The security master names are read from: the REPL's context builder's (so a new alias
    is known to the next turn), else the database's."""
    builder = getattr(ws, "builder", None)
    return builder.securities if builder is not None else ws.market.securities


@click.command(
    "alias",
    help="股票别名：alias 宁王 300750 设置（之后提到别名就会加载这只股票）；alias --remove 宁王 删除；不带参数列出全部。",
)
@argument("alias", Text("别名"), "别名，如 宁王", required=False)
@argument("symbol", StockCode(), "股票代码，如 300750", required=False)
@click.option("--remove", is_flag=True, help="删除这个别名")
@json_option
@demo_option
def alias_command(alias: str | None, symbol: str | None, remove: bool, as_json: bool, demo: bool) -> None:
    ws = common.on_workspace()
    master = _master(ws)
    if alias is None:
        outcome = AliasOutcome("list", aliases.list_aliases(master))
    elif remove:
        if symbol is not None:
            raise CommandError("--remove 只需要别名")
        aliases.remove_alias(master, alias)
        outcome = AliasOutcome("remove", [], alias)
    elif symbol is None:
        raise CommandError(f"用法：{common.spell('alias')} 别名 代码（如 {common.spell('alias')} 宁王 300750）")
    else:
        outcome = AliasOutcome("add", [aliases.add_alias(master, alias, symbol, ws.now())], alias)
    _show(views.show_alias, outcome, views.alias_record(outcome) if as_json else None)


COMMANDS = {"memory": memory, "remember": remember, "forget": forget, "alert": alert, "alias": alias_command}
