"""Refreshing the security master from a market list (`pixiu data sync`, `--securities`):
the list's rows written in one go, and every stock the list renamed keeps its old name as an
alias (source `former`), so what the user typed last year still finds it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from pixiu_cli.market.securities import FORMER_NAME_SOURCE, Security, parse_name, shipped_name, shipped_names
from pixiu_cli.market.store import SecurityMaster

# A list this much shorter than the shipped one is a truncated answer (baostock can end a
# query early without an error): writing it would not lose rows, but the count would lie.
MIN_SHARE_OF_SHIPPED = 0.5


@dataclass(frozen=True)
class Rename:
    symbol: str
    old: str
    new: str


@dataclass(frozen=True)
class MasterRefresh:
    source: str
    stocks: int
    added: int
    renamed: tuple[Rename, ...]


def _typed(name: str) -> str:
    return parse_name(name).short_name


def renames(master: SecurityMaster, securities: Sequence[Security]) -> list[Rename]:
    """Stocks whose typed name the list changes, against the master, else the shipped list
    (gaining or losing ST is no rename: *ST天微 and 天微 are one name)."""
    current = {s.symbol: s.name for s in master.all()}
    shipped = {s.code: s.full_name for s in shipped_names()}
    out = []
    for security in securities:
        old = current.get(security.symbol) or shipped.get(security.symbol)
        if old and _typed(old) != _typed(security.name):
            out.append(Rename(security.symbol, old, security.name))
    return out


def refresh_master(
    master: SecurityMaster, source: str, securities: Sequence[Security], at: str, *, whole_market: bool = False
) -> MasterRefresh:
    """Write a source's list; the old names of renamed stocks become `former` aliases (a
    user's own alias of the same spelling is left alone). `whole_market`: the list claims
    to be every listed stock, so a short one is refused before anything is written."""
    stocks = [replace(s, updated_at=at) for s in securities if s.kind == "stock"]
    if whole_market and len(stocks) < MIN_SHARE_OF_SHIPPED * len(shipped_names()):
        from pixiu_cli.market.sources import SourceError  # the sources load when one is used

        raise SourceError(f"{source} 证券列表只返回 {len(stocks):,} 只股票，疑似不完整：未写入，保留现有列表")
    known = {s.symbol for s in master.all()} | {s.code for s in shipped_names()}
    changed = renames(master, stocks)
    master.upsert(stocks)
    taken = {a.alias for a in master.aliases()}
    for rename in changed:
        for spelling in dict.fromkeys((rename.old, _typed(rename.old))):
            if spelling not in taken:
                master.add_alias(spelling, rename.symbol, source=FORMER_NAME_SOURCE, at=at)
                taken.add(spelling)
    return MasterRefresh(source, len(stocks), sum(s.symbol not in known for s in stocks), tuple(changed))


def security_name(master: SecurityMaster, symbol: str) -> str | None:
    """A stock's name: the security master's, else the shipped security list's (a fresh home
    names every listed stock). Names never come from a statement or a holding row."""
    security = master.get(symbol)
    if security is not None and security.name:
        return security.name
    return shipped_name(symbol)
