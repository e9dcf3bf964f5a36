"""The prompt-toolkit session: persistent history, Enter sends, Alt-Enter / Ctrl-J insert a
newline, bracketed paste keeps a multi-line paste as one message, Tab completion (below).

Tab completion beyond command names: each command's flags (read from its usage text, so
the two cannot drift), memory ids for /forget and /memory edit|pin|unpin|replace, conversation ids
for /resume, stock codes and names for /chart, /alert add and --symbol, kinds for --kind,
priced models for /model. Values come from `CompletionSources`, read when Tab is pressed.

Where completion's values come from: the REPL's database, read when Tab is pressed."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import Completer, Completion
from prompt_toolkit.history import FileHistory
from prompt_toolkit.key_binding import KeyBindings

from pixiu_cli.kernel.vocabulary import NOTE_KINDS
from pixiu_cli.market.securities import shipped_names
from pixiu_cli.repl.registry import registry
from pixiu_cli.repl.state import ReplState

PROMPT = "你 › "


def _key_bindings() -> KeyBindings:
    bindings = KeyBindings()

    @bindings.add("enter")
    def _send(event) -> None:
        event.current_buffer.validate_and_handle()

    @bindings.add("escape", "enter")
    @bindings.add("c-j")
    def _newline(event) -> None:
        event.current_buffer.insert_text("\n")

    return bindings


def _private_file(path: Path) -> None:
    """What the user typed is as private as the database: 0600, created so if missing."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
        if path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)
    except OSError:
        pass  # FileHistory reports a real problem when it writes


class _KeptHistory(FileHistory):
    """FileHistory that survives a file it cannot write (a full disk, a read-only home): the
    error once escaped into prompt_toolkit's event loop as a raw traceback and discarded the
    question. The REPL says so once (`failed_once`)."""

    def __init__(self, filename: str):
        super().__init__(filename)
        self._failed, self._said = False, False

    def store_string(self, string: str) -> None:
        try:
            super().store_string(string)
        except OSError:
            self._failed = True

    def failed_once(self) -> bool:
        """True the first time after a write failed, then False."""
        if self._failed and not self._said:
            self._said = True
            return True
        return False


def make_prompt_session(history_path: Path, completer: Completer, **io) -> PromptSession:
    _private_file(history_path)
    return PromptSession(
        history=_KeptHistory(str(history_path)),
        multiline=True,
        key_bindings=_key_bindings(),
        completer=completer,
        complete_while_typing=True,
        prompt_continuation=lambda width, line_number, is_soft_wrap: " " * (width - 2) + "… ",
        enable_history_search=False,
        reserve_space_for_menu=4,
        **io,
    )


def one_key_question(**io):
    """A y/N question answered by one key: y is yes, any other key (Enter, n, Ctrl-C) is no."""
    bindings = KeyBindings()

    @bindings.add("<any>")
    def _no(event) -> None:
        event.app.exit(result=False)

    @bindings.add("y")  # added last: it wins over <any> for the y key
    @bindings.add("Y")
    def _yes(event) -> None:
        event.app.exit(result=True)

    session = PromptSession(key_bindings=bindings, **io)
    return lambda question: bool(session.prompt(f"{question} [y/N] "))


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


MAX_STOCKS = 30


def _memory_ids(state: ReplState) -> list[Choice]:
    return [(e.ref, e.text[:30]) for e in state.app.memory.listing(limit=50)]


def _conversations(state: ReplState) -> list[Choice]:
    return [(str(c.id), (c.title or "（无标题）")[:30]) for c in state.app.store.list_conversations(50)]


def _stocks(state: ReplState, typed: str) -> list[Choice]:
    """Held and watched stocks first, then every listed one whose code or name starts so."""

    own = {h.symbol: h.name for h in state.app.builder.domain.holdings()}
    for symbol, _ in state.app.market.bars.watchlist():
        own.setdefault(symbol, state.app.builder.names.security_name(symbol) or "")
    listed = ((s.code, s.short_name) for s in shipped_names())
    found: dict[str, str] = {}
    for code, name in (*own.items(), *listed):
        if code not in found and (code.startswith(typed) or name.startswith(typed)):
            found[code] = name
    return list(islice(found.items(), MAX_STOCKS))


def _models(state: ReplState) -> list[str]:
    from pixiu_cli.account.report import PUBLISHED_RATES

    return [m for m in PUBLISHED_RATES if m != "pixiu-offline"]


def _declared(name: str, before: list[str]) -> object:
    command = registry.get(name)
    return command.completing(before) if command is not None and command.completing else None


def sources_for(state: ReplState) -> CompletionSources:
    return CompletionSources(
        commands=lambda: [(c.name, c.usage) for c in registry.all()],
        memory_ids=lambda: _memory_ids(state),
        conversations=lambda: _conversations(state),
        stocks=lambda typed: _stocks(state, typed),
        models=lambda: _models(state),
        declared=_declared,
    )
