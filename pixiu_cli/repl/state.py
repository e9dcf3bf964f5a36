"""What the REPL knows between inputs: the app, where output goes, the current conversation.

The system clipboard, through the tool each platform ships (pbcopy, wl-copy, xclip,
xsel, clip.exe): no dependency, and no guess when there is none (an SSH session, a bare
console): the caller says so instead."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass

from pixiu_cli.app import App
from pixiu_cli.commands.values import CommandError
from pixiu_cli.conversation.ask import start_conversation
from pixiu_cli.kernel.clock import Clock
from pixiu_cli.kernel.render import Renderer

# (program, arguments, the environment variable that says a session it can reach exists)
_TOOLS: tuple[tuple[str, tuple[str, ...], str | None], ...] = (
    ("pbcopy", (), None),
    ("wl-copy", (), "WAYLAND_DISPLAY"),
    ("xclip", ("-selection", "clipboard"), "DISPLAY"),
    ("xsel", ("--clipboard", "--input"), "DISPLAY"),
    ("clip.exe", (), None),
)


class NoClipboard(Exception):
    """No clipboard this process can write; the message says why, in one line."""


def _tool() -> list[str] | None:
    for program, args, needs in _TOOLS:
        if program == "pbcopy" and sys.platform != "darwin":
            continue
        if needs and not os.environ.get(needs):
            continue
        path = shutil.which(program)
        if path:
            return [path, *args]
    return None


def copy(text: str) -> str:
    """Put `text` on the clipboard; the name of the tool that did it."""
    command = _tool()
    if command is None:
        raise NoClipboard("没有可用的剪贴板（未找到 pbcopy / wl-copy / xclip / xsel / clip.exe，或没有图形会话）")
    try:
        subprocess.run(command, input=text.encode("utf-8"), check=True, timeout=5, capture_output=True)
    except (OSError, subprocess.SubprocessError) as exc:
        raise NoClipboard(f"写入剪贴板失败（{os.path.basename(command[0])}）：{exc}") from None
    return os.path.basename(command[0])


class ExitRepl(Exception):
    pass


def _copy(text: str) -> str:

    try:
        return copy(text)
    except NoClipboard as exc:
        raise CommandError(f"{exc}；可用 /save 保存为文件") from None


@dataclass
class ReplState:
    app: App
    renderer: Renderer
    conversation_id: int | None = None
    edit_text: Callable[[str], str] | None = None  # asks the user to edit a text in place
    answer_key: Callable[[str], bool] | None = None  # a y/N question answered by one key (None: y + Enter)
    clock: Clock | None = None  # None: the app's (a test may pin its own)
    offered_session: str | None = None  # the session whose stale data the REPL last offered to sync
    background_sync: object | None = None  # repl/loop.BackgroundSync while one runs
    retype: str = ""  # a question that could not be stored, put back at the next prompt

    def __post_init__(self) -> None:
        if self.clock is None:
            self.clock = self.app.clock

    def stamp(self) -> str:
        """Now on the REPL's clock, as notes, alerts and trades are stamped."""
        return self.clock().isoformat(timespec="seconds")

    def leave(self) -> None:
        """/exit: the loop ends the session."""
        raise ExitRepl()

    def copy_text(self, text: str) -> str:
        """/copy: the text on the clipboard; the tool that took it."""
        return _copy(text)

    def ensure_conversation(self) -> int:
        if self.conversation_id is None:
            app = self.app
            self.conversation_id = start_conversation(app.store, app.settings.model, app.model_switched)
        return self.conversation_id
