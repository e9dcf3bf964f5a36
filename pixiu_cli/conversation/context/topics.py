"""What the selection's topics add to the block (selection/topics.py decides): each named
stock's section gains its dated 基本面 part, a portfolio question about valuation gets one
valuation line a holding, and a question about the market as a whole gets 市场概况."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from pixiu_cli.conversation.context.block import Section
from pixiu_cli.conversation.selection.result import Selection
from pixiu_cli.kernel.db.stores import stores_of


def _ranked(holdings: list, account) -> list:
    """Largest positions first: the valuation's values where there is one, else cost × shares."""
    if account is not None:
        values = {v.symbol: float(v.value) for v in account.account.holdings}
        return sorted(holdings, key=lambda h: -values.get(h.symbol, 0.0))
    return sorted(holdings, key=lambda h: -((h.shares or 0) * (h.cost or 0)))


def with_topics(
    sections: list[Section], selection: Selection, db, holdings: list, account, now: datetime
) -> list[Section]:
    topics = selection.topics
    if not (topics.fundamentals or topics.holdings_fundamentals or topics.market):
        return sections
    # Loaded for the questions that need them only: most turns ask about neither.
    from pixiu_cli.conversation.context.fundamentals import fundamentals_items, holding_line, holdings_section
    from pixiu_cli.conversation.context.market_review import market_section
    from pixiu_cli.market.fundamentals.sources import read_fundamentals
    from pixiu_cli.market.review.breadth import market_review

    store, today = stores_of(db).fundamentals, now.date()
    out = []
    for section in sections:
        if topics.fundamentals and section.key.startswith("symbol:"):
            f = read_fundamentals(store, section.key.removeprefix("symbol:"))
            # first: for a valuation question they are the answer, trimmed last of the section
            section = replace(section, items=tuple(fundamentals_items(f, today)) + section.items)
        if topics.market and section.key == "holdings":
            out.append(market_section(market_review(db, now), today))
        out.append(section)
        if topics.holdings_fundamentals and section.key == "portfolio_profiles":
            lines = [
                holding_line(h.symbol, h.name, read_fundamentals(store, h.symbol, 1))
                for h in _ranked(holdings, account)
            ]
            out.append(holdings_section(lines))
    return out
