"""The user's own changes to the memory by its ids: forget (a note deleted or its merge
undone, a trade undone with the holding following it, an alert rule removed — `a3`) and
edit a note's text. One path for `/forget`, `pixiu forget` and `/memory edit`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pixiu_cli.kernel.db.shared_stores import stores_of
from pixiu_cli.kernel.errors import RequestError

if TYPE_CHECKING:
    from sqlite_utils import Database


@dataclass(frozen=True)
class Forgetting:
    ref: str  # "n12", "d5", "a3"
    kind: str  # "note" | "trade" | "alert"
    done: object  # store.memory.Forgotten | store.portfolio.UndoneTrade | None for a rule


def forget_memory(db: Database, typed: str, at: str, cost_method: str) -> Forgetting:
    from pixiu_cli.account import trades
    from pixiu_cli.memory.alerts import rule_ref

    rule_id = rule_ref(typed)
    if rule_id is not None:
        if not stores_of(db).analytics.remove_rule(rule_id, at):
            raise RequestError(f"没有预警规则 a{rule_id}")
        return Forgetting(f"a{rule_id}", "alert", None)
    memory = stores_of(db).memory
    ref = memory.resolve(typed)
    if ref.kind == "d":
        undone = trades.undo_trade(db, ref.id, at, cost_method)
        if undone is None:
            raise RequestError(f"没有 ID 为 {ref} 的记忆")
        return Forgetting(str(ref), "trade", undone)
    forgotten = memory.forget(ref.id, at)
    if forgotten is None:
        raise RequestError(f"没有 ID 为 {ref} 的记忆")
    return Forgetting(str(ref), "note", forgotten)


@dataclass(frozen=True)
class Edited:
    ref: str
    text: str


def edit_memory(db: Database, typed: str, text: str | None, at: str, ask: Callable[[str], str] | None = None) -> Edited:
    """A note's new text; without one, `ask` is handed the old text to edit in place."""
    memory = stores_of(db).memory
    ref = memory.resolve(typed)
    if ref.kind == "d":
        raise RequestError(f"交易记录 #{ref} 不能修改：撤销（持仓会恢复）后重新记录")
    event = memory.get(ref.id)
    new_text = (text or "").strip()
    if not new_text and ask is not None and event is not None:
        new_text = ask(event.text).strip()
    if not new_text:
        raise RequestError("新文本为空，记忆未修改")
    if not memory.edit(ref.id, new_text, at):
        raise RequestError(f"没有 ID 为 {ref} 的记忆")
    return Edited(str(ref), new_text)
