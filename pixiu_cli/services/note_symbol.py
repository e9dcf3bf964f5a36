"""The stock a note is about when nobody said which: the one stock its text names, by code
or by a holding's name, short name, a security master name or a user's alias."""

from __future__ import annotations

from collections import defaultdict

from pixiu_cli.context.symbols import HoldingName, extract_symbols
from pixiu_cli.store.domain import DomainStore
from pixiu_cli.store.securities import SecurityMaster


def known_names(domain: DomainStore) -> list[HoldingName]:
    """Holdings first (their short names are the user's words), then every stock of the
    security master with its aliases; index codes are left out so 上证 is never a stock."""
    names = [HoldingName(h.symbol, h.name, h.short_names) for h in domain.holdings()]
    held = {n.symbol for n in names}
    master = SecurityMaster(domain.db)
    aliases: dict[str, list[str]] = defaultdict(list)
    for alias in master.aliases():
        aliases[alias.symbol].append(alias.alias)
    for symbol in [s for s in aliases if s in held]:
        index = next(i for i, n in enumerate(names) if n.symbol == symbol)
        names[index] = HoldingName(symbol, names[index].name, (*names[index].short_names, *aliases[symbol]))
    names += [
        HoldingName(s.symbol, s.name, tuple(aliases.get(s.symbol, ())))
        for s in master.all()
        if s.kind == "stock" and s.symbol not in held
    ]
    return names


def symbol_in_text(domain: DomainStore, text: str) -> str | None:
    """The one stock `text` names, or None when it names none or several (a note comparing
    two stocks belongs to neither)."""
    found = extract_symbols(text, known_names(domain))
    return found[0] if len(found) == 1 else None
