"""A background sync that ends while no prompt is running (between two prompts, or before
the first one is drawn) is still reported above the prompt without the user typing: its
thread finds no running prompt to print to, so the next prompt reports it when it starts."""

from __future__ import annotations

import io
import threading
import time

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from pixiu_cli.app import open_app
from pixiu_cli.kernel.render import Renderer
from pixiu_cli.kernel.settings import load_settings
from pixiu_cli.repl import loop
from pixiu_cli.repl.loop import BackgroundSync, run_repl
from pixiu_cli.repl.state import ReplState


def _send_eof_once_shown(pipe, out: io.StringIO, text: str, seconds: float) -> threading.Thread:
    def run() -> None:
        deadline = time.monotonic() + seconds
        while text not in out.getvalue() and time.monotonic() < deadline:
            time.sleep(0.05)
        pipe.send_bytes(b"\x04")

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_a_sync_that_ended_before_the_prompt_is_reported_unasked(tmp_path, monkeypatch):
    monkeypatch.setenv("PIXIU_HOME", str(tmp_path))
    monkeypatch.setenv("PIXIU_NOW", "2025-06-03T10:00")  # during the session: nothing is offered
    monkeypatch.setitem(__import__("sys").modules, "baostock", None)  # no source: each symbol fails at once
    for name in ("DEEPSEEK_API_KEY", "OPENAI_API_KEY", "PIXIU_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    app = open_app(load_settings(force_offline=True))
    out = io.StringIO()
    try:
        state = ReplState(app=app, renderer=Renderer(file=out, stderr=out, rich_output=False))
        started_syncs: list[BackgroundSync] = []

        def start_a_sync_that_ends_at_once(state: ReplState) -> None:
            # the REPL's opening offer starts a real background sync that is over before the
            # prompt comes up, as a fast one can be: its thread finds no prompt to print to
            state.background_sync = sync = BackgroundSync(state, "baostock")
            sync.start()
            sync.wait(30)
            started_syncs.append(sync)

        monkeypatch.setattr(loop, "offer_sync", start_a_sync_that_ends_at_once)
        with create_pipe_input() as pipe:
            sender = _send_eof_once_shown(pipe, out, "后台同步完成", seconds=10)
            started = time.monotonic()
            run_repl(state, input=pipe, output=DummyOutput())
            sender.join()
        shown = out.getvalue()
        assert shown.count("后台同步完成（baostock，3 只）") == 1 and "baostock 未安装" in shown, shown
        assert time.monotonic() - started < 10  # reported while the prompt waited, not at the deadline
        assert len(started_syncs) == 1 and not started_syncs[0].running
        assert state.background_sync is None  # reported once, then forgotten
    finally:
        app.close()
