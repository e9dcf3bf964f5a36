"""The user's own changes to the memory by its ids: forget (a note deleted or its merge
undone, a trade undone with the holding following it, an alert rule removed — `a3`) and
edit a note's text. One path for `/forget`, `pixiu forget` and `/memory edit`.

What `/memory TEXT` finds: a query that is one stock (its code in any spelling, its full
name, a short name, a nickname or the user's alias) finds every memory about that stock as
well as those whose text contains the words; a query that is a kind (纪律, 计划, 观点, 交易)
lists that kind. The whole query must be the name: a search is not a sentence, so a short
name needs no other evidence here, and 宁德时代 is matched by the one name matcher a turn uses."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pixiu_cli.kernel.errors import RequestError
from pixiu_cli.kernel.vocabulary import MEMORY_KIND_NAMES
from pixiu_cli.market.names.codes import find_codes, normalize
from pixiu_cli.market.names.table import INDEX, SHADOW, NameSource
from pixiu_cli.memory.alerts import rule_ref
from pixiu_cli.memory.store import MemoryEntry

if TYPE_CHECKING:
    from pixiu_cli.memory.handle import Memory


@dataclass(frozen=True)
class Forgetting:
    ref: str  # "n12", "d5", "a3"
    kind: str  # "note" | "trade" | "alert"
    done: object  # store.memory.Forgotten | store.portfolio.UndoneTrade | None for a rule


def forget_memory(memory: Memory, typed: str, at: str) -> Forgetting:
    from pixiu_cli.account import trades

    rule_id = rule_ref(typed)
    if rule_id is not None:
        if not memory.market.analytics.remove_rule(rule_id, at):
            raise RequestError(f"没有预警规则 a{rule_id}")
        return Forgetting(f"a{rule_id}", "alert", None)
    store = memory.store
    ref = store.resolve(typed)
    if ref.kind == "d":
        undone = trades.undo_trade(memory.account, ref.id, at)
        if undone is None:
            raise RequestError(f"没有 ID 为 {ref} 的记忆")
        return Forgetting(str(ref), "trade", undone)
    forgotten = store.forget(ref.id, at)
    if forgotten is None:
        raise RequestError(f"没有 ID 为 {ref} 的记忆")
    return Forgetting(str(ref), "note", forgotten)


@dataclass(frozen=True)
class Edited:
    ref: str
    text: str


def edit_memory(
    memory: Memory, typed: str, text: str | None, at: str, ask: Callable[[str], str] | None = None
) -> Edited:
    """A note's new text; without one, `ask` is handed the old text to edit in place."""
    store = memory.store
    ref = store.resolve(typed)
    if ref.kind == "d":
        raise RequestError(f"交易记录 #{ref} 不能修改：撤销（持仓会恢复）后重新记录")
    event = store.get(ref.id)
    new_text = (text or "").strip()
    if not new_text and ask is not None and event is not None:
        new_text = ask(event.text).strip()
    if not new_text:
        raise RequestError("新文本为空，记忆未修改")
    if not store.edit(ref.id, new_text, at):
        raise RequestError(f"没有 ID 为 {ref} 的记忆")
    return Edited(str(ref), new_text)


# 纪律 → rule, 交易 → decision …, and the English kinds themselves.
_KIND_WORDS = {**{name: kind for kind, name in MEMORY_KIND_NAMES.items()}, **{k: k for k in MEMORY_KIND_NAMES}}


def kind_of_query(query: str) -> str | None:
    return _KIND_WORDS.get(query.strip().lower())


def stock_of_query(memory: Memory, query: str) -> str | None:
    """The one stock the whole query names, or None."""
    folded = normalize(query.strip())
    if not folded:
        return None
    holdings = memory.investor.holdings()
    table = NameSource(memory.market.securities).table(holdings)
    codes = {code for _, code in find_codes(folded, table.held | {h.symbol for h in holdings})}
    if len(codes) == 1 and len(folded) <= 12:  # the code with an exchange mark at most (sz300750, 300750.SZ)
        return codes.pop()
    whole = [m for m in table.matches(folded) if m.start == 0 and m.end == len(folded)]
    if len(whole) == 1 and whole[0].name.symbol and whole[0].name.kind not in (INDEX, SHADOW):
        return whole[0].name.symbol
    return None


def search_memories(
    memory: Memory, query: str | None, *, kind: str | None = None, symbol: str | None = None, limit: int = 50
) -> list[MemoryEntry]:
    """Notes and trades, newest first: by kind, by stock, by words, as `/memory` reads them."""
    store = memory.store
    query = (query or "").strip() or None
    if query and kind is None and kind_of_query(query):
        return store.listing(kind=kind_of_query(query), symbol=symbol, limit=limit)
    about = stock_of_query(memory, query) if query and symbol is None else None
    entries = store.listing(text=query, kind=kind, symbol=symbol, limit=limit)
    if about is None:
        return entries
    by_ref = {e.ref: e for e in [*store.listing(kind=kind, symbol=about, limit=limit), *entries]}
    return sorted(by_ref.values(), key=lambda e: e.created_at, reverse=True)[:limit]
