"""What `/memory TEXT` finds: a query that is one stock (its code in any spelling, its full
name, a short name, a nickname or the user's alias) finds every memory about that stock as
well as those whose text contains the words; a query that is a kind (纪律, 计划, 观点, 交易)
lists that kind. The whole query must be the name: a search is not a sentence, so a short
name needs no other evidence here, and 宁德时代 is matched by the one name matcher a turn uses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pixiu_cli.kernel.db.shared_stores import stores_of
from pixiu_cli.kernel.vocabulary import MEMORY_KIND_NAMES
from pixiu_cli.market.names.codes import find_codes
from pixiu_cli.market.names.normalize import normalize
from pixiu_cli.market.names.table import INDEX, SHADOW, NameSource
from pixiu_cli.memory.store import MemoryEntry

if TYPE_CHECKING:
    from sqlite_utils import Database

# 纪律 → rule, 交易 → decision …, and the English kinds themselves.
_KIND_WORDS = {**{name: kind for kind, name in MEMORY_KIND_NAMES.items()}, **{k: k for k in MEMORY_KIND_NAMES}}


def kind_of_query(query: str) -> str | None:
    return _KIND_WORDS.get(query.strip().lower())


def stock_of_query(db: Database, query: str) -> str | None:
    """The one stock the whole query names, or None."""
    folded = normalize(query.strip())
    if not folded:
        return None
    domain = stores_of(db).investor
    holdings = domain.holdings()
    table = NameSource(stores_of(db).securities).table(holdings)
    codes = {code for _, code in find_codes(folded, table.held | {h.symbol for h in holdings})}
    if len(codes) == 1 and len(folded) <= 12:  # the code with an exchange mark at most (sz300750, 300750.SZ)
        return codes.pop()
    whole = [m for m in table.matches(folded) if m.start == 0 and m.end == len(folded)]
    if len(whole) == 1 and whole[0].name.symbol and whole[0].name.kind not in (INDEX, SHADOW):
        return whole[0].name.symbol
    return None


def search_memories(
    db: Database, query: str | None, *, kind: str | None = None, symbol: str | None = None, limit: int = 50
) -> list[MemoryEntry]:
    """Notes and trades, newest first: by kind, by stock, by words, as `/memory` reads them."""
    memory = stores_of(db).memory
    query = (query or "").strip() or None
    if query and kind is None and kind_of_query(query):
        return memory.listing(kind=kind_of_query(query), symbol=symbol, limit=limit)
    about = stock_of_query(db, query) if query and symbol is None else None
    entries = memory.listing(text=query, kind=kind, symbol=symbol, limit=limit)
    if about is None:
        return entries
    by_ref = {e.ref: e for e in [*memory.listing(kind=kind, symbol=about, limit=limit), *entries]}
    return sorted(by_ref.values(), key=lambda e: e.created_at, reverse=True)[:limit]
