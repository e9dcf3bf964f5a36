"""How a slash command is registered and read: a command is one registered function with its
help text; /help and completion are generated from a registry. The REPL's registry, filled
with the declared commands on first use, is repl/slash_commands.py's."""

from __future__ import annotations

import re
import shlex
import threading
from collections.abc import Callable
from dataclasses import dataclass

from pixiu_cli.commands.values import CommandError

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
