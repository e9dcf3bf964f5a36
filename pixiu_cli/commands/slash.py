"""The REPL's side of a declaration: `/name [sub] words…` read into the parameters, the usage
line /help shows, and what Tab completes — all from the declared parameters. A bad line is
one Chinese line (`CommandError`) and nothing runs."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from pixiu_cli.commands.declaration import REPL, Command, Context, Group, Param, run
from pixiu_cli.commands.values import Choice, CommandError, Flag

_OPTION = re.compile(r"--[a-z][a-z-]*")  # "--" alone, "--5%" or an SQL comment are text
_WORD = re.compile(r"\S+")


def usage(command: Command, default: bool = False) -> str:
    """`default`: the group's default subcommand, whose name may be left out (`/trades [list]`)."""
    path = [*command.path[:-1], f"[{command.path[-1]}]"] if default else command.path
    parts = ["/" + " ".join(path)]
    params = command.on(REPL)
    for p in params:
        if p.flag is None:
            shown = f"{p.metavar}…" if p.many and not p.as_typed else p.metavar
            parts.append(shown if p.required else f"[{shown}]")
        elif p.within is None:  # a flag that goes only with this one is shown inside it: [--push [--last]]
            nested = "".join(f" [{_spelled(q)}]" for q in params if q.within == p.name)
            parts.append(f"[{_spelled(p)}{nested}]")
    return " ".join(parts)


def _spelled(p: Param) -> str:
    if isinstance(p.kind, Flag):
        return p.flag
    value = "|".join(p.kind.choices) if isinstance(p.kind, Choice) else p.metavar
    return f"{p.flag} {value}"


def _take_options(command: Command, words: list[str]) -> tuple[dict, list[int]]:
    """The options' values by parameter name, and the indexes of the other words."""
    options = {p.flag: p for p in command.on(REPL) if p.flag}
    given: dict = {}
    loose: list[int] = []
    i = 0
    while i < len(words):
        word = words[i]
        param = options.get(word)
        if param is not None and isinstance(param.kind, Flag):
            given[param.name] = True
        elif param is not None:
            if i + 1 >= len(words):
                raise CommandError(f"{word} 需要一个值")
            given[param.name] = words[i + 1]
            i += 1
        elif _OPTION.fullmatch(word):
            raise CommandError(f"未知选项 {word}")
        else:
            loose.append(i)
        i += 1
    return given, loose


def _typed_text(raw: str, spans: list[re.Match], indexes: list[int]) -> str:
    """The words at `indexes` as typed: each unbroken stretch verbatim, stretches joined by a space."""
    pieces, start, last = [], None, None
    for i in indexes:
        if start is not None and i != last + 1:
            pieces.append(raw[spans[start].start() : spans[last].end()])
            start = None
        start = i if start is None else start
        last = i
    if start is not None:
        pieces.append(raw[spans[start].start() : spans[last].end()])
    return " ".join(pieces)


def parse(command: Command, args: list[str], raw: str) -> dict:
    """The words typed for each parameter (`args`: shell-like words; `raw`: the text as typed,
    which a parameter read `as_typed` takes whole)."""
    typed = any(p.as_typed for p in command.on(REPL))
    spans = list(_WORD.finditer(raw)) if typed else []
    words = [m.group() for m in spans] if typed else list(args)
    given, loose = _take_options(command, words)
    positional = [p for p in command.on(REPL) if p.flag is None]
    for param in positional:
        if param.many:
            rest, loose = loose, []
            given[param.name] = _typed_text(raw, spans, rest) if param.as_typed else [words[i] for i in rest]
        elif loose:
            given[param.name] = words[loose.pop(0)]
        elif param.required:
            raise CommandError(f"用法：{usage(command)}")
    alone = [p for p in command.on(REPL) if p.within and given.get(p.name) and not given.get(p.within)]
    if loose or alone:
        raise CommandError(f"用法：{usage(command)}")
    return given


def _after_first_word(raw: str) -> str:
    return re.sub(r"^\s*\S+\s*", "", raw, count=1)


@dataclass(frozen=True)
class Slash:
    """One /name: a declared command, or a group's subcommands (and the one run by default)."""

    name: str
    summary: str
    own: Command | None = None
    subcommands: dict[str, Command] = field(default_factory=dict)
    default: str | None = None

    @property
    def usage(self) -> str:
        if self.own is not None:
            return usage(self.own)
        return " | ".join(usage(c, name == self.default) for name, c in self.subcommands.items())

    def pick(self, args: list[str], raw: str) -> tuple[Command, list[str], str]:
        if self.own is not None:
            return self.own, args, raw
        if args and args[0] in self.subcommands:
            return self.subcommands[args[0]], args[1:], _after_first_word(raw)
        if self.default is None:
            raise CommandError(f"用法：{self.usage}")
        return self.subcommands[self.default], args, raw

    def run(self, ctx: Context, args: list[str], raw: str) -> None:
        command, words, text = self.pick(args, raw)
        try:
            given = parse(command, words, text)
        except CommandError as exc:
            defaulted = self.own is None and command.path[-1] == self.default and words == args
            if defaulted and str(exc).startswith("用法："):
                raise CommandError(f"用法：{self.usage}") from None  # words no subcommand takes
            raise exc
        run(command, ctx, given)

    def completing(self, before: list[str]) -> str | tuple[str, ...] | None:
        """What the next word is: a completion source's name, the words to offer, or None."""
        if self.own is None and not before:
            return tuple(self.subcommands)
        command, rest = (self.own, before) if self.own else self._sub(before)
        if command is None:
            return None
        return _next_word(command, rest)

    def _sub(self, before: list[str]) -> tuple[Command | None, list[str]]:
        if before[0] in self.subcommands:
            return self.subcommands[before[0]], before[1:]
        return (self.subcommands[self.default], before) if self.default else (None, before)


def _next_word(command: Command, before: list[str]):
    params = command.on(REPL)
    options = {p.flag: p for p in params if p.flag and not isinstance(p.kind, Flag)}
    if before and before[-1] in options:
        return options[before[-1]].kind.complete
    positional = [p for p in params if p.flag is None]
    count, skip = 0, False
    for word in before:
        if skip:
            skip = False
        elif word in options:
            skip = True
        elif not word.startswith("--"):
            count += 1
    param = _positional_at(positional, count)
    return param.kind.complete if param else None


def _positional_at(positional: list[Param], index: int) -> Param | None:
    for n, param in enumerate(positional):
        if param.many or n == index:
            return param
    return None


def slash_commands(declared: Iterable[Command | Group]) -> list[Slash]:
    """The /names the REPL registers, in the declared order."""
    groups = {d.path: d for d in declared if isinstance(d, Group) and REPL in d.surfaces}
    found: dict[str, dict] = {}
    for d in declared:
        if not isinstance(d, Command) or REPL not in d.surfaces:
            continue
        top = d.path[0]
        entry = found.setdefault(top, {"subcommands": {}})
        if len(d.path) == 1:
            entry["own"] = d
        else:
            entry["subcommands"][d.path[1]] = d
    slashes = []
    for top, entry in found.items():
        group = groups.get((top,))
        summary = group.summary if group else entry["own"].summary
        default = group.default if group else None
        slashes.append(Slash(top, summary, entry.get("own"), entry["subcommands"], default))
    return slashes
