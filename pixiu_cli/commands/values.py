"""The kinds of value a command's parameter takes, each read from one typed word the same way
on both surfaces: text, a whole number within bounds, a decimal number, an ISO day, one of a
few choices, a stock code (THE one check of a six-digit code) and on/off flags. A word that
does not fit is one Chinese line (`CommandError`); nothing has been done yet."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation

from pixiu_cli.kernel.errors import UserError
from pixiu_cli.kernel.vocabulary import normalise_code


class CommandError(UserError):
    """Bad use of a command; the message is one line for the user and nothing changed."""


@dataclass(frozen=True)
class Text:
    """Any word (or, for a `many` parameter, the words joined by one space)."""

    metavar: str = "文本"
    complete: str | None = None  # the completion source for its words ("memory", "conversation"…)
    cli_type: type = str

    def read(self, word: str, label: str, resolve=None) -> str:
        return word


_WHOLE = re.compile(r"[0-9]{1,18}")  # ASCII digits SQLite can hold; str.isdigit() also takes '²'


def whole_number(word: str) -> int | None:
    """The whole number a word is in ASCII digits SQLite can hold, or None."""
    return int(word) if _WHOLE.fullmatch(word) else None


@dataclass(frozen=True)
class Number:
    """A decimal number (money, shares, a threshold) read exactly; `positive`: above zero."""

    metavar: str = "数值"
    positive: bool = False
    complete: str | None = None
    cli_type: type = str

    def read(self, word: str, label: str, resolve=None) -> Decimal:
        try:
            value = Decimal(str(word).strip())
        except InvalidOperation:
            value = None
        if value is None or not value.is_finite() or (self.positive and value <= 0):
            wanted = "正数" if self.positive else "数字"
            raise CommandError(f"{label}应为{wanted}，而不是 {word!r}")
        return value


_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True)
class Day:
    """A calendar day written YYYY-MM-DD, kept as that text."""

    metavar: str = "YYYY-MM-DD"
    complete: str | None = None
    cli_type: type = str

    def read(self, word: str, label: str, resolve=None) -> str:
        if not _ISO_DAY.fullmatch(word):
            raise CommandError(f"{label} 应为 YYYY-MM-DD 日期，而不是 {word!r}")
        try:
            date.fromisoformat(word)
        except ValueError:
            raise CommandError(f"{label} 不是有效日期：{word}") from None
        return word


@dataclass(frozen=True)
class Choice:
    """One of a few words; completion offers them."""

    choices: tuple[str, ...]
    metavar: str = ""
    cli_type: type = str

    @property
    def complete(self) -> tuple[str, ...]:
        return self.choices

    def read(self, word: str, label: str, resolve=None) -> str:
        if word not in self.choices:
            raise CommandError(f"{label} 只能是 {'、'.join(self.choices)}，而不是 {word!r}")
        return word


def spelled_code(raw: str) -> str | None:
    """The six-digit code a word spells (any digits, full-width, stray spaces), or None; for a
    word that may be a code or something else (/chart 600519 120)."""
    return normalise_code(raw)


@dataclass(frozen=True)
class StockCode:
    """A stock: a code in any spelling (600519, ６００５１９), or where the surface can look
    names up (`resolve`: market/handle.py), a name, short name or alias."""

    metavar: str = "代码"
    complete: str | None = "stock"
    cli_type: type = str

    def read(self, word: str, label: str, resolve=None) -> str:
        code = spelled_code(word)
        if code is not None:
            return code
        if resolve is not None and not word.strip().isdigit():
            return resolve(word)
        raise CommandError(f"股票代码应为 6 位数字，而不是 {word!r}")


def _series(word: str, resolve):
    """An index benchmark's stored key for any spelling of it (sh000300, 000300.SH, 沪深300),
    else a stock read as `StockCode` reads it."""
    from pixiu_cli.market.importer import spelled_benchmark

    index = spelled_benchmark(word)
    return index.key if index else StockCode().read(word, "", resolve)


@dataclass(frozen=True)
class SeriesCode:
    """A stock, or an index benchmark (sh000300, 沪深300): what `data bars` and `data sync` read."""

    metavar: str = "代码"
    complete: str | None = "stock"
    cli_type: type = str

    def read(self, word: str, label: str, resolve=None) -> str:
        return _series(word, resolve)


def read_stdin_text() -> str:
    try:
        return sys.stdin.buffer.read().decode("utf-8")
    except UnicodeDecodeError:
        raise CommandError("标准输入不是有效的 UTF-8 文本") from None


def require_utf8(text: str) -> None:
    """Arguments arrive with undecodable bytes as surrogates; refuse them before storing."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise CommandError("问题含有无效的 UTF-8 字节") from None
