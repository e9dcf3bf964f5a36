"""How a slash command is registered and read: a command is one registered function with its
help text; /help and completion are generated from a registry. The REPL's registry, filled
with the declared commands on first use, is repl/slash_commands.py's.

The REPL's /words: each plain click command of cli/root.py's group that the REPL offers,
registered with its usage line and next-word completion (repl/slash.py), run through that group.

The REPL's slash commands: one registry, filled with the declared commands
(repl/declared_commands.py) on first use — a `/` typed, a slash command, the warm-up — not
before the prompt: importing every declaration module costs the prompt ~60 ms. It sits above
the modules the declared commands run through (state, turn), so they never import it back."""

from __future__ import annotations

import re
import shlex
import threading
from collections.abc import Callable
from dataclasses import dataclass

from pixiu_cli.commands.values import CommandError
from pixiu_cli.repl.state import ReplState

__all__ = ["CommandError", "CommandRegistry", "ParsedCommand", "SlashCommand"]


@dataclass(frozen=True)
class SlashCommand:
    name: str
    summary: str
    usage: str
    handler: Callable
    completing: Callable[[list[str]], object] | None = None  # a declared command's next-word completion
    declaration: object | None = None  # what completes its next word (repl/declared_commands.py)


@dataclass(frozen=True)
class ParsedCommand:
    name: str
    args: list[str]
    raw_args: str


class CommandRegistry:
    def __init__(self, loader: Callable[[], None] | None = None) -> None:
        """`loader`: registers the commands, run once before the first look-up."""
        self._commands: dict[str, SlashCommand] = {}
        self._loader = loader
        self._loading = threading.Lock()

    def command(self, name: str, summary: str, usage: str = "", declaration=None):
        def register(handler: Callable) -> Callable:
            if name in self._commands:
                raise ValueError(f"slash command /{name} registered twice")
            completing = declaration.completing if declaration is not None else None
            self._commands[name] = SlashCommand(name, summary, usage or f"/{name}", handler, completing, declaration)
            return handler

        return register

    def load(self) -> None:
        """Registers the commands if not yet done: the warm-up thread and a `/` typed meanwhile
        may both ask, and the second waits for the first to finish; nothing is registered twice."""
        with self._loading:
            if self._loader is not None:
                self._loader()
                self._loader = None

    def get(self, name: str) -> SlashCommand | None:
        self.load()
        return self._commands.get(name)

    def all(self) -> list[SlashCommand]:
        self.load()
        return sorted(self._commands.values(), key=lambda c: c.name)

    def names(self) -> list[str]:
        return [c.name for c in self.all()]

    def rows(self) -> list[tuple[str, str]]:
        """/help: each command's usage and summary."""
        return [(c.usage, c.summary) for c in self.all()]


def is_command(line: str) -> bool:
    return line.lstrip().startswith("/") and not line.lstrip().startswith("//")


def parse_command(line: str) -> ParsedCommand:
    """`/name args…` → name and shell-like args. With unbalanced quotes (an apostrophe in
    free text) the args are the plain whitespace-separated words; commands that take free
    text (/remember, /memory edit) read raw_args, which is always the text as typed."""
    body = line.strip()[1:]
    # The name ends at any whitespace: "/remember" + Alt-Enter + text is /remember with that text.
    name, raw_args = re.match(r"(\S*)\s*(.*)", body, re.DOTALL).groups()
    if not name:
        raise CommandError("命令为空：输入 /help 查看可用命令")
    try:
        args = shlex.split(raw_args)
    except ValueError:
        args = raw_args.split()
    return ParsedCommand(name=name.lower(), args=args, raw_args=raw_args.strip())


class _ClickSlash:
    """A /word that is a plain click command of cli/root.py's group (repl/slash.py)."""

    def __init__(self, word: str):
        self.word = word

    def completing(self, before: list[str]):
        from pixiu_cli.repl.slash import completing

        return completing(self.word, before)


def _click_handler(word: str):
    def handle(state: ReplState, cmd: ParsedCommand) -> None:
        from pixiu_cli.repl.slash import run_slash

        run_slash(state, word, cmd.args, cmd.raw_args)

    return handle


def register_declared(registry: CommandRegistry) -> None:
    """Each /word into `registry`, run through cli/root.py's group. /help lists them by name."""
    from pixiu_cli.repl.slash import usage, words

    for word, summary in words():
        registry.command(word, summary, usage(word), declaration=_ClickSlash(word))(_click_handler(word))


def _register_declared() -> None:

    register_declared(registry)


registry = CommandRegistry(_register_declared)
