"""Calling a library that can block forever (baostock has no socket timeout of its own):
the call runs in a daemon thread, so a hung call is abandoned, never waited on at exit."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class CallTimeout(Exception):
    pass


def call_with_timeout(fn: Callable[[], T], seconds: float) -> T:
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True, name="pixiu-source-call")
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise CallTimeout(f"{seconds:g} 秒内没有响应")
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]
