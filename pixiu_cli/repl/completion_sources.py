"""Where completion's values come from: the REPL's database, read when Tab is pressed."""

from __future__ import annotations

from itertools import islice

from pixiu_cli.kernel.db.shared_stores import stores_of
from pixiu_cli.repl.completion import Choice, CompletionSources
from pixiu_cli.repl.slash_commands import registry
from pixiu_cli.repl.state import ReplState

MAX_STOCKS = 30


def _memory_ids(state: ReplState) -> list[Choice]:
    return [(e.ref, e.text[:30]) for e in state.app.memory.listing(limit=50)]


def _conversations(state: ReplState) -> list[Choice]:
    return [(str(c.id), (c.title or "（无标题）")[:30]) for c in state.app.store.list_conversations(50)]


def _stocks(state: ReplState, typed: str) -> list[Choice]:
    """Held and watched stocks first, then every listed one whose code or name starts so."""
    from pixiu_cli.market.securities import shipped_names

    db = state.app.store.db
    own = {h.symbol: h.name for h in state.app.builder.domain.holdings()}
    for symbol, _ in stores_of(db).market.watchlist():
        own.setdefault(symbol, state.app.builder.names.security_name(symbol) or "")
    listed = ((s.code, s.short_name) for s in shipped_names())
    found: dict[str, str] = {}
    for code, name in (*own.items(), *listed):
        if code not in found and (code.startswith(typed) or name.startswith(typed)):
            found[code] = name
    return list(islice(found.items(), MAX_STOCKS))


def _models(state: ReplState) -> list[str]:
    from pixiu_cli.account.report import PUBLISHED_RATES

    return [m for m in PUBLISHED_RATES if m != "pixiu-offline"]


def _declared(name: str, before: list[str]) -> object:
    command = registry.get(name)
    return command.completing(before) if command is not None and command.completing else None


def sources_for(state: ReplState) -> CompletionSources:
    return CompletionSources(
        commands=lambda: [(c.name, c.usage) for c in registry.all()],
        memory_ids=lambda: _memory_ids(state),
        conversations=lambda: _conversations(state),
        stocks=lambda typed: _stocks(state, typed),
        models=lambda: _models(state),
        declared=_declared,
    )
