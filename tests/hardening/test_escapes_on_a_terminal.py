"""Terminal escapes in stored text (a security name carrying OSC, CSI, DCS and bidi controls)
are neutralised by every printer on a terminal, and JSON stays exact when piped."""

from __future__ import annotations

import json

import pytest

from tests.helpers import bars_csv, clean_env, in_process_clean


@pytest.fixture
def env(tmp_path):
    return clean_env(tmp_path / "home")


HOSTILE_NAME = "茅台\x1b]0;PWNED\x07\x1b]8;;http://x\x07链\x1b]8;;\x07\x1b[2J\x1bPq#0\x1b\\\u202e\u2066\x9b31m"


RAW_CONTROLS = ("\x1b]", "\x1b[2J", "\x1bP", "\u202e", "\u2066", "\x9b", "\x07")


def _terminal_output(env, *args) -> str:
    from tests.helpers import spawn

    child = spawn(env, *args)
    child.expect(__import__("pexpect").EOF, timeout=60)
    child.close()
    return child.before


def _hostile_series(env, tmp_path):
    rows = [f"2024-03-{d:02d},10,12,9,{10 + d / 10:.1f},100" for d in (4, 5, 6, 7, 8, 11, 12, 13)]
    path = bars_csv(tmp_path / "bars.csv", *rows)
    done = in_process_clean(env, "data", "import", str(path), "--symbol", "600519", "--name", HOSTILE_NAME)
    assert done.returncode == 0, done.stderr


@pytest.mark.pty
@pytest.mark.slow  # a pty process each; the fast subset's pty session is tests/repl/test_repl_pty.py
def test_chart_on_a_terminal_neutralises_escapes_in_a_security_name(env, tmp_path):
    _hostile_series(env, tmp_path)
    shown = _terminal_output(env, "chart", "600519", "--days", "5")
    assert "2024-03-13" in shown and "茅台" in shown
    assert not [c for c in RAW_CONTROLS if c in shown]


@pytest.mark.pty
@pytest.mark.slow
def test_json_on_a_terminal_escapes_controls_and_keeps_the_value(env, tmp_path):
    _hostile_series(env, tmp_path)
    shown = _terminal_output(env, "data", "status", "--json")
    assert not [c for c in RAW_CONTROLS if c in shown]
    assert "\\u202e" in shown
    assert json.loads(shown.replace("\r\n", "\n"))[0]["name"] == HOSTILE_NAME


def test_every_json_printer_escapes_on_a_terminal_and_is_exact_when_piped():
    import io

    from pixiu_cli.kernel.render import Renderer

    value = {"reply": "答\u202e案\u2066\x85\x9b\x7f\ud800", "n": 1}
    terminal, piped = io.StringIO(), io.StringIO()
    Renderer(file=terminal, rich_output=True).json(value, indent=None)
    Renderer(file=piped, rich_output=False).json(value, indent=None)
    assert not [c for c in ("\u202e", "\u2066", "\x85", "\x9b", "\x7f", "\ud800") if c in terminal.getvalue()]
    assert json.loads(terminal.getvalue()) == value
    assert piped.getvalue() == json.dumps(value, ensure_ascii=False) + "\n"
