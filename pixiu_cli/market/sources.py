"""The PriceSource interface every market-data source implements, and the error it raises.
The sources themselves (and how one is picked by name: source_by_name.py) import this module,
never the other way round.

Calling a library that can block forever (baostock has no socket timeout of its own):
the call runs in a daemon thread, so a hung call is abandoned, never waited on at exit."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol, TypeVar

from pixiu_cli.kernel.errors import UserError
from pixiu_cli.market.bars import Bar, CorporateAction
from pixiu_cli.market.securities import Security, board_for


class SourceError(UserError):
    """A source could not answer; the message is one line naming the source and the reason."""


class PriceSource(Protocol):
    name: str
    # Whether `data sync` of bars also refreshes the security list: cheap for baostock (one
    # query); for akshare it crawls three exchanges' sites, left to `--securities`.
    lists_with_bars: bool

    def daily_bars(self, symbol: str, start: str, end: str) -> list[Bar]:
        """Unadjusted bars of days the stock traded, oldest first (suspended days left out)."""

    def actions(self, symbol: str, start: str, end: str) -> list[CorporateAction]:
        """Corporate actions with ex-dates in [start, end]."""

    def trading_days(self, start: str, end: str) -> list[str]:
        """Exchange trading days in [start, end] (empty when the source cannot say)."""

    def securities(self) -> list[Security]:
        """The market's security list (empty when the source cannot say)."""

    def close(self) -> None: ...


def exchange_code(symbol: str) -> str:
    """sh / sz / bj prefix of a six-digit code (the BSE's 920xxx codes share their first digit
    with Shanghai's 900xxx B shares, so the board decides first)."""
    if board_for(symbol) == "bse":
        return "bj"
    if symbol.startswith(("5", "6", "9")):
        return "sh"
    if symbol.startswith(("4", "8")):
        return "bj"
    return "sz"


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
