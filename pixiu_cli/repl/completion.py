"""Tab completion beyond command names: each command's flags (read from its usage text, so
the two cannot drift), memory ids for /forget and /memory edit|pin|unpin|replace, conversation ids
for /resume, stock codes and names for /chart, /alert add and --symbol, kinds for --kind,
priced models for /model. Values come from `CompletionSources`, read when Tab is pressed."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from prompt_toolkit.completion import Completer, Completion

from pixiu_cli.kernel.vocabulary import NOTE_KINDS

_FLAG = re.compile(r"--[a-z][a-z-]*")
Choice = tuple[str, str]  # (what is inserted, what is shown beside it)


@dataclass(frozen=True)
class CompletionSources:
    commands: Callable[[], Iterable[tuple[str, str]]]  # (name, usage)
    memory_ids: Callable[[], Iterable[Choice]]
    conversations: Callable[[], Iterable[Choice]]
    stocks: Callable[[str], Iterable[Choice]]  # given what was typed so far
    models: Callable[[], Iterable[str]]
    # a command's next word (repl/slash.py): a source's name, the words to offer, or None
    declared: Callable[[str, list[str]], object] = lambda name, before: None


_MEMORY_SUBCOMMANDS = ("edit", "pin", "unpin", "replace")
_KINDS = {"remember": NOTE_KINDS, "memory": (*NOTE_KINDS, "decision")}


def value_kind(command: str, before: list[str]) -> str | None:
    """What the word being typed is, from the command and the words before it."""
    previous = before[-1] if before else None
    if previous == "--symbol":
        return "stock"
    if previous == "--kind":
        return "kind"
    first = not before
    if command in ("forget",) and first:
        return "memory"
    if command == "memory" and previous in _MEMORY_SUBCOMMANDS and len(before) == 1:
        return "memory"
    if command == "memory" and first:
        return "memory_subcommand"
    if (command == "chart" and first) or (command == "alert" and before == ["add"]):
        return "stock"
    if command == "alert" and first:
        return "alert_subcommand"
    return None


class PixiuCompleter(Completer):
    def __init__(self, sources: CompletionSources):
        self.sources = sources

    def get_completions(self, document, complete_event):
        text = document.text_before_cursor
        if not text.startswith("/") or "\n" in text:
            return
        if " " not in text:
            for name, usage in self.sources.commands():
                if name.startswith(text[1:]):
                    yield Completion("/" + name, start_position=-len(text), display_meta=usage)
            return
        name, _, rest = text[1:].partition(" ")
        words = rest.split(" ")
        word, before = words[-1], [w for w in words[:-1] if w]
        for value, meta in self._choices(name, before, word):
            if value.startswith(word) or (meta and word and word in meta):
                yield Completion(value, start_position=-len(word), display_meta=meta)

    def _choices(self, name: str, before: list[str], word: str) -> Iterable[Choice]:
        if word.startswith("-"):
            usage = dict(self.sources.commands()).get(name, "")
            return [(flag, "") for flag in dict.fromkeys(_FLAG.findall(usage))]
        kind = self.sources.declared(name, before) or value_kind(name, before)
        if isinstance(kind, tuple):
            return [(k, "") for k in kind]
        if kind == "memory":
            return self.sources.memory_ids()
        if kind == "conversation":
            return self.sources.conversations()
        if kind == "stock":
            return self.sources.stocks(word)
        if kind == "kind":
            return [(k, "") for k in _KINDS.get(name, ())]
        if kind == "model":
            return [(m, "") for m in self.sources.models()]
        if kind == "memory_subcommand":
            return [(s, "") for s in _MEMORY_SUBCOMMANDS]
        if kind == "alert_subcommand":
            return [("add", ""), ("remove", "")]
        return []
