"""Warming up what the first turn would otherwise wait for: the openai SDK, DeepSeek's
tokenizer and rich's Markdown take most of a second to load, the selection's rules some
50 ms to compile and its word segmenter half a second, so they load in a background thread once the prompt is on the screen,
while the user reads and types."""

from __future__ import annotations

import asyncio
import threading

from pixiu_cli import render, tokens


class Warmup:
    def __init__(self, client):
        self._client = client
        self.thread: threading.Thread | None = None

    def after_draw(self) -> None:
        """The prompt's pre_run: it runs before the prompt is first drawn, so the thread is
        started from the event loop, which gets control only after that draw."""
        if self.thread is None:
            asyncio.get_running_loop().call_soon(self.start)

    def start(self) -> None:
        """Only the first call starts the thread."""
        if self.thread is None:
            self.thread = threading.Thread(target=self._run, name="pixiu-warmup", daemon=True)
            self.thread.start()

    def _run(self) -> None:
        from pixiu_cli.selection.select import warm as warm_selection
        from pixiu_cli.selection.words import warm as warm_segmenter

        try:
            warm_selection()
            self._client.warm()
            render.warm()
            tokens.warm()
            warm_segmenter()  # last: jieba's dictionary, for the questions that need word boundaries
        except Exception:
            pass  # a failure here shows up, with its proper message, when the turn needs it
