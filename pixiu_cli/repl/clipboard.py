"""The system clipboard, through the tool each platform ships (pbcopy, wl-copy, xclip,
xsel, clip.exe): no dependency, and no guess when there is none (an SSH session, a bare
console): the caller says so instead."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

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
