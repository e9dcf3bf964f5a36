"""The progress bar a sync of more than a few symbols shows on a terminal (and never in a pipe)."""

from __future__ import annotations

import io

from pixiu_cli.kernel.render import Renderer


def test_progress_bar_on_a_terminal_only():
    out = io.StringIO()
    renderer = Renderer(file=out, rich_output=True)
    with renderer.progress(4, "同步（baostock）", show=True) as advance:
        for _ in range(4):
            advance()
    assert "同步（baostock）" in out.getvalue()
    piped = io.StringIO()
    with Renderer(file=piped, rich_output=False).progress(4, "同步", show=True) as advance:
        advance()
    with Renderer(file=piped, rich_output=True).progress(2, "同步", show=False) as advance:
        advance()
    assert piped.getvalue() == ""
