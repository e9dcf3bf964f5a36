"""What the REPL knows between inputs: the app, where output goes, the current conversation."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pixiu_cli.app import App
from pixiu_cli.conversation.ask import start_conversation
from pixiu_cli.kernel.clock import Clock
from pixiu_cli.kernel.render import Renderer
from pixiu_cli.repl.clipboard import NoClipboard, copy


class ExitRepl(Exception):
    pass


def _copy(text: str) -> str:
    from pixiu_cli.commands.values import CommandError

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
    background_sync: object | None = None  # repl/sync_commands.BackgroundSync while one runs
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
