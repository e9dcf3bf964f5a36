"""The security master's entries (codes, names, boards and kinds of every security pixiu can
name) and the user's aliases for them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Security:
    symbol: str  # six ASCII digits
    name: str
    kind: str = "stock"  # stock | index
    board: str | None = None  # main | chinext | star | bse (None when unknown)
    list_date: str | None = None
    status: str | None = None  # listed | delisted | suspended (None when unknown)
    is_st: bool = False
    source: str | None = None  # import | baostock | akshare | csv | shipped | ...
    updated_at: str | None = None


# Alias.source of a name a later market list replaced (the stock was renamed).
FORMER_NAME_SOURCE = "former"


@dataclass(frozen=True)
class Alias:
    alias: str
    symbol: str
    source: str  # user | shipped | former
    created_at: str | None = None
