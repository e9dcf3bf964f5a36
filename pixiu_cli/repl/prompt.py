"""The prompt-toolkit session: persistent history, Enter sends, Alt-Enter / Ctrl-J insert a
newline, bracketed paste keeps a multi-line paste as one message, completion (completion.py)."""

from __future__ import annotations

import os
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import Completer
from prompt_toolkit.history import FileHistory
from prompt_toolkit.key_binding import KeyBindings

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
