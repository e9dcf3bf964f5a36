"""Piped output: a line, info or dim line (and an error or warning on a stderr that is no
terminal) is written without rich, byte for byte as rich's console would write it (no
terminal: styles dropped, soft wrap); a tab, or an environment that makes rich colour a
pipe, still goes through rich."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text

from pixiu_cli.kernel.render import Renderer, visible

CORPUS = [
    "",
    " ",
    "  前导与结尾空格  ",
    "中文" * 80,  # longer than any width: never wrapped
    "a\nb\n\n",
    "e\u0301 👨‍👩‍👧 \u200b \u3000全角",
    "[bold]不是标记[/] :smile:",
    "\x1b]0;PWNED\x07\r\x0b\x0c\x08",  # made visible first
    "\u202e倒序\u2066",
]


def through_rich(text: str, style: str | None, force_terminal: bool | None = None) -> str:
    out = io.StringIO()
    console = Console(file=out, highlight=False, soft_wrap=True, force_terminal=force_terminal)
    console.print(Text(visible(text), style=style))
    return out.getvalue()


def written(method: str, text: str, **renderer) -> str:
    out = io.StringIO()
    getattr(Renderer(file=out, **renderer), method)(text)
    return out.getvalue()


STYLES = {"line": None, "info": "cyan", "dim": "dim"}


@pytest.mark.parametrize("text", CORPUS)
@pytest.mark.parametrize("method", STYLES)
def test_a_piped_line_is_what_rich_writes(method, text, monkeypatch):
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    renderer = Renderer(file=io.StringIO())
    assert renderer._plain(visible(text))
    assert written(method, text) == through_rich(text, STYLES[method])
    assert "console" not in vars(renderer)  # rich's console was never built


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60))
def test_any_text_piped_is_what_rich_writes(text):
    for method, style in STYLES.items():
        assert written(method, text, rich_output=False) == through_rich(text, style, force_terminal=False)


def test_a_tab_or_forced_colour_goes_through_rich(monkeypatch):
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    renderer = Renderer(file=io.StringIO())
    assert not renderer._plain("a\tb")
    assert written("line", "中\tb") == through_rich("中\tb", None) == "中      b\n"
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert not Renderer(file=io.StringIO())._plain("彩色")
    assert "\x1b[" in written("info", "彩色")  # rich colours the pipe, as before
    assert Renderer(file=io.StringIO(), rich_output=False)._plain("彩色")  # told: no terminal


def err_written(method: str, text: str) -> tuple[str, Renderer]:
    err = io.StringIO()
    renderer = Renderer(file=io.StringIO(), stderr=err)
    getattr(renderer, method)(text)
    return err.getvalue(), renderer


ERR_STYLES = {"error": ("错误：", "bold red"), "warn": ("注意：", "yellow")}


@pytest.mark.parametrize("text", [*CORPUS, "数据源 baostock 同步失败（23 只）：OSError [Errno 101]"])
@pytest.mark.parametrize("method", ERR_STYLES)
def test_an_error_or_warning_on_a_piped_stderr_is_what_rich_writes(method, text, monkeypatch):
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    from pixiu_cli.kernel.render import one_line, scrub

    prefix, style = ERR_STYLES[method]
    line = prefix + one_line(scrub(text))
    out = io.StringIO()
    Console(file=out, highlight=False, soft_wrap=True).print(Text(line, style=style))
    written_err, renderer = err_written(method, text)
    assert written_err == out.getvalue()
    if line.isprintable():
        assert "err_console" not in vars(renderer)  # written without rich


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60))
def test_any_error_piped_is_what_rich_writes(text):
    from pixiu_cli.kernel.render import one_line, scrub

    out = io.StringIO()
    Console(file=out, highlight=False, soft_wrap=True).print(Text("错误：" + one_line(scrub(text)), style="bold red"))
    assert err_written("error", text)[0] == out.getvalue()
