"""The watch list in front of the model. A watched stock is named like a held one (its short
name needs no more evidence than a holding's: the user follows it), its section says it is
watched, and a question about the watch list (the ``watchlist`` target of
selection/targets.py) gets the list itself, one line per stock."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import TYPE_CHECKING

from pixiu_cli.conversation.context.block import BlockItem, Section
from pixiu_cli.conversation.context.quoting import day, defuse, show_signed
from pixiu_cli.market.names.table import Holder, NameSource

if TYPE_CHECKING:
    from pixiu_cli.home.handle import InvestorStore
    from pixiu_cli.market.handle import Market

KEY = "watchlist"
PRIORITY = 88  # under the asked-about stocks' sections, above the persona


def watched(market: Market) -> dict[str, str]:
    """symbol → when it was added (the store's stamp)."""
    return dict(market.bars.watchlist())


def watch_holders(watch: Mapping[str, str], names: NameSource, held: set[str]) -> list[Holder]:
    """The watched stocks the user does not hold, as name-table holders."""
    return [Holder(s, names.security_name(s) or "", ()) for s in watch if s not in held]


def watch_note(added_at: str) -> str:
    added = day(added_at)
    return f"在自选列表中（{added.isoformat()} 加入）" if added else "在自选列表中"


def watch_section(watch: Mapping[str, str], names: NameSource, domain: InvestorStore, today: date) -> Section:
    items = []
    for symbol, added_at in watch.items():
        name = names.security_name(symbol) or ""
        signal = domain.latest_signal(symbol)
        brief = ""
        if signal is not None:
            direction = defuse(signal.direction or "")
            brief = f" · 信号 {show_signed(signal.score)}{' ' + direction if direction else ''}（{signal.as_of}）"
        added = day(added_at)
        since = f" · {added.isoformat()} 加入" if added else ""
        items.append(BlockItem(f"{defuse(symbol)} {defuse(name)}".rstrip() + since + brief, "事实"))
    if not items:
        items.append(BlockItem("自选列表是空的（pixiu watch add 代码 添加）", "事实"))
    return Section(KEY, f"自选股（{len(watch)} 只）", tuple(items), PRIORITY, note="用户关注但未必持有的股票")
