"""`/X args` through the `pixiu` command group (cli/root.py) with the REPL's session as the
command's `obj`: the same click command as `pixiu X`. The line is split as a shell would (the
plain words when a quote is left open); what click refuses becomes today's one Chinese line,
and /help's usage line and Tab's next word are read from the same command's parameters."""

from __future__ import annotations

import re

import click

from pixiu_cli.commands import common
from pixiu_cli.commands.common import what
from pixiu_cli.commands.params import Text
from pixiu_cli.commands.values import CommandError

CLI_ONLY = ("as_json", "demo")  # the command line's --json and --demo
_NEGATIVE = re.compile(r"-\d")


def words() -> list[tuple[str, str]]:
    """The REPL's /words that are plain click commands, with their summaries: none until the
    entry point has handed the group down (cli/app.py)."""
    if common.command_group is None:
        return []
    return common.command_group().repl_words()


def command_of(word: str) -> click.Command:
    return common.command_group().get_command(None, word)


def _params(command: click.Command) -> list[click.Parameter]:
    """The parameters the REPL takes: not the command line's alone (cli/params.py `surfaces`)."""
    return [
        p
        for p in command.params
        if p.name not in CLI_ONLY and p.name != "help" and "repl" in getattr(p, "surfaces", ("repl",))
    ]


def _shown(param: click.Parameter) -> str:
    kind = param.type
    if getattr(kind, "choices", None) and isinstance(param, click.Option):
        return "|".join(kind.choices)
    return getattr(kind, "shown", None) or (param.metavar or param.name.upper())


def _usage_of(command: click.Command, path: list[str]) -> str:
    parts = ["/" + " ".join(path)]
    params = _params(command)
    for p in params:
        if isinstance(p, click.Argument):
            # every word left: /news sync [代码…]; free text reads as one: /remember [文本]
            shown = _shown(p) + ("…" if p.nargs == -1 and not isinstance(p.type, Text) else "")
            parts.append(shown if p.required else f"[{shown}]")
        elif getattr(p, "within", None) is None:  # a flag that goes only with this one is shown inside it
            nested = "".join(f" [{_spelled(q)}]" for q in params if getattr(q, "within", None) == p.name)
            parts.append(f"[{_spelled(p)}{nested}]")
    return " ".join(parts)


def _spelled(p: click.Option) -> str:
    return p.opts[0] if p.is_flag else f"{p.opts[0]} {_shown(p)}"


def _takes(command: click.Command, flag: str) -> bool:
    """Whether `/word` (or one of its subcommands) takes `flag` in the REPL."""
    subcommands = getattr(command, "commands", {}).values()
    return any(flag in getattr(p, "opts", ()) for p in _params(command)) or any(_takes(c, flag) for c in subcommands)


def usage(word: str) -> str:
    """/help's line for `/word`: a group's subcommands, the default one's name in brackets."""
    command = command_of(word)
    if not isinstance(command, click.Group):
        return _usage_of(command, [word])
    default = getattr(command, "default", None)
    return " | ".join(
        _usage_of(sub, [word, f"[{name}]" if name == default else name]) for name, sub in command.commands.items()
    )


def _refusal(exc: click.UsageError, word: str, args: list[str]) -> str:

    if isinstance(exc, click.NoSuchOption):
        return common.negative_number(exc.option_name, args) or f"未知选项 {exc.option_name}"
    if isinstance(exc, click.BadOptionUsage):
        return f"{exc.option_name} 需要一个值"
    if isinstance(exc, click.BadParameter) and not isinstance(exc, click.MissingParameter):
        return what(exc, args)
    command = exc.ctx.command if exc.ctx is not None else None
    if command is not None and not isinstance(command, click.Group) and args and args[0] == command.name:
        return f"用法：{_usage_of(command, [word, command.name])}"  # a subcommand named and misused
    return f"用法：{usage(word)}"


def _reads_typed(word: str, args: list[str]) -> bool:
    """Whether the command `/word args` runs reads its free text as typed."""
    command = command_of(word)
    if isinstance(command, click.Group):
        command = command.commands.get(args[0]) if args else None
    return getattr(command, "reads_typed", False)


def run_slash(state, word: str, args: list[str], raw: str | None = None) -> None:
    """Run `/word args` in the REPL's session; `raw`: the line after `/word` as typed (a
    command reading free text as typed gets its plain words, and reads the text from it)."""
    if raw is not None and _reads_typed(word, raw.split()):
        args = raw.split()
    for arg in args:
        if arg in ("--json", "--demo") and not _takes(command_of(word), arg):
            raise CommandError(f"未知选项 {arg}")
    try:
        with common.typed(raw):
            common.command_group().main([word, *args], prog_name="", standalone_mode=False, obj=state)
    except click.UsageError as exc:
        raise CommandError(_refusal(exc, word, args)) from None
    except click.Abort as exc:  # click turns Ctrl-C into Abort: the REPL handles the interrupt
        raise KeyboardInterrupt from exc


def completing(word: str, before: list[str]):
    """What the next word of `/word` is: a completion source's name, the words to offer, or None."""
    command = command_of(word)
    if isinstance(command, click.Group):
        if not before:
            return tuple(command.commands)
        if before[0] in command.commands:
            command, before = command.commands[before[0]], before[1:]
        elif getattr(command, "default", None):
            command = command.commands[command.default]
        else:
            return None
    params = _params(command)
    options = {o: p for p in params if isinstance(p, click.Option) and not p.is_flag for o in p.opts}
    if before and before[-1] in options:
        return getattr(options[before[-1]].type, "complete", None)
    positional = [p for p in params if isinstance(p, click.Argument)]
    count, skip = 0, False
    for typed in before:
        if skip:
            skip = False
        elif typed in options:
            skip = True
        elif not typed.startswith("--"):
            count += 1
    for n, param in enumerate(positional):
        if param.nargs == -1 or n == count:
            return getattr(param.type, "complete", None)
    return None
