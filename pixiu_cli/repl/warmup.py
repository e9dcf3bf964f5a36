"""Warming up what the first turn would otherwise wait for: the openai SDK and rich's
Markdown take most of a second to load, the selection's rules some 50 ms to compile, the
shipped names and pypinyin's dictionaries some 0.5 s together, its word segmenter half a
second, so they load in a background thread once the prompt is on the screen, while the
user reads and types — in the order a turn needs them. While a turn runs, the thread
starts no further step: the turn loads what it needs itself, and a step it does not need
(the segmenter, most often) would only take the interpreter from it."""

from __future__ import annotations

import asyncio
import threading

from pixiu_cli.tokenizer import counts as tokens
from pixiu_cli.views import render


class Warmup:
    def __init__(self, client):
        self._client = client
        self.thread: threading.Thread | None = None
        self._idle = threading.Event()  # set while the prompt waits for the user

    def after_draw(self) -> None:
        """The prompt's pre_run: it runs before the prompt is first drawn, so the thread is
        started from the event loop, which gets control only after that draw."""
        self.prompt_shown()
        if self.thread is None:
            asyncio.get_running_loop().call_soon(self.start)

    def prompt_shown(self) -> None:
        """The user is reading or typing: the next step may start."""
        self._idle.set()

    def turn_started(self) -> None:
        """A line was entered: no new step until the next prompt."""
        self._idle.clear()

    def start(self) -> None:
        """Only the first call starts the thread."""
        if self.thread is None:
            self._idle.set()
            self.thread = threading.Thread(target=self._run, name="pixiu-warmup", daemon=True)
            self.thread.start()

    def _run(self) -> None:
        from pixiu_cli.selection import homophones, names
        from pixiu_cli.selection.select import warm as warm_selection
        from pixiu_cli.selection.words import warm as warm_segmenter

        steps = (
            warm_selection,
            names.warm,
            homophones.warm,
            tokens.warm,
            self._client.warm,
            render.warm,
            warm_segmenter,  # last: jieba's dictionary, for the questions that need word boundaries
        )
        try:
            for step in steps:
                self._idle.wait()
                step()
        except Exception:
            pass  # a failure here shows up, with its proper message, when the turn needs it
