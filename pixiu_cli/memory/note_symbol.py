"""The stock a note is about when nobody said which: the one stock its text names, found
by the same rules as a turn's stocks (the turn's name table, `selection.select`): by code,
by a holding's name or short name, a security master name, a shipped nickname or a user's
alias, with a short name taken only on the same evidence a question would need."""

from __future__ import annotations

from pixiu_cli.conversation.selection.names import NameSource
from pixiu_cli.conversation.selection.select import select
from pixiu_cli.home.store import InvestorStore
from pixiu_cli.kernel.db.stores import stores_of


def symbol_in_text(domain: InvestorStore, text: str) -> str | None:
    """The one stock `text` names, or None when it names none or several (a note comparing
    two stocks belongs to neither)."""
    table = NameSource(stores_of(domain.db).securities).table(domain.holdings())
    found = select(text, table).symbols
    return found[0] if len(found) == 1 else None
