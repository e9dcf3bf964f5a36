"""`pixiu signal`: the stored fused signal of each holding (or each given code) with its
components, as the context block has them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pixiu_cli.kernel.db.stores import stores_of
from pixiu_cli.kernel.refusal import RequestError
from pixiu_cli.market.security_master import security_name

if TYPE_CHECKING:
    from sqlite_utils import Database


@dataclass(frozen=True)
class SignalView:
    symbol: str
    name: str | None
    score: float | None  # None, like the rest, when nothing is stored for the stock
    direction: str | None
    components: dict[str, float]
    as_of: str | None


def stored_signals(db: Database, symbols: list[str] | None) -> list[SignalView]:
    """The latest stored signal of each symbol (default: every holding), in the order asked."""
    store, master = stores_of(db).investor, stores_of(db).securities
    names = {h.symbol: h.name for h in store.holdings()}
    wanted = symbols or list(names)
    if not wanted:
        raise RequestError("没有持仓：给出股票代码（pixiu signal 600519），或先导入持仓")
    out = []
    for symbol in dict.fromkeys(wanted):
        signal = store.latest_signal(symbol)
        name = names.get(symbol) or security_name(master, symbol)
        if signal is None:
            out.append(SignalView(symbol, name, None, None, {}, None))
        else:
            out.append(SignalView(symbol, name, signal.score, signal.direction, dict(signal.components), signal.as_of))
    return out
