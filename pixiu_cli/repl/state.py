"""What the REPL knows between inputs: the app, where output goes, the current conversation."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pixiu_cli.app import App
from pixiu_cli.render import Renderer
from pixiu_cli.services.conversations import start_conversation


class ExitRepl(Exception):
    pass


@dataclass
class ReplState:
    app: App
    renderer: Renderer
    conversation_id: int | None = None
    edit_text: Callable[[str], str] | None = None  # asks the user to edit a text in place

    def ensure_conversation(self) -> int:
        if self.conversation_id is None:
            self.conversation_id = start_conversation(self.app.store, self.app.settings.model)
        return self.conversation_id
