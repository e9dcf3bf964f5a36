"""What the selection's topics add to the block (selection/topics.py decides): each named
stock's section gains its dated 基本面 part, a portfolio question about valuation gets one
valuation line a holding, and a question about the market as a whole gets 市场概况.

A brief's items are objects a follow-up can point to: the stocks the briefs a turn read
named (今天的简报说了什么 → 里面点名的那只该怎么办).

Given the selection of an earlier turn that asked about the brief, `BriefObjects` reads the
reports that turn's block showed (its reports window, moved by its time words, else the
configured one) and finds the stocks each conclusion names with the turn's own name table —
the one name matcher — oldest report first, so the newest brief's stock is the one last named.

`## 已撤回或更正`: what the model was shown earlier in this conversation and is no longer
true. Under the keep / delta layout earlier `[上下文信息]` blocks and tool results stay in
the history as sent, so a note the user forgot (or a trade undone, a note edited) would
still be in front of the model; the next block says so explicitly instead.

Only memories this conversation's history actually showed are listed (block items carry
`（note:12）` / `（decision:5）`, tool results carry typed ids `n12` / `d5`): a withdrawal the
model never saw changes nothing for it, and listing every recent one would cost tokens on
every turn. The section is never trimmed by the budget; it is bounded instead."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime, time
from typing import TYPE_CHECKING

from pixiu_cli.conversation.context.block import BlockItem, Section, is_context_message
from pixiu_cli.conversation.context.memory_classes import MemoryLimits, window_bounds
from pixiu_cli.conversation.context.quoting import quote_data
from pixiu_cli.conversation.selection.result import Carried, Selection
from pixiu_cli.market.names.codes import normalize
from pixiu_cli.market.names.table import INDEX, SHADOW, NameTable
from pixiu_cli.memory.model import Withdrawal

if TYPE_CHECKING:
    from pixiu_cli.home.handle import InvestorStore
    from pixiu_cli.market.handle import Market
    from pixiu_cli.memory.handle import Memory


def _ranked(holdings: list, account) -> list:
    """Largest positions first: the valuation's values where there is one, else cost × shares."""
    if account is not None:
        values = {v.symbol: float(v.value) for v in account.account.holdings}
        return sorted(holdings, key=lambda h: -values.get(h.symbol, 0.0))
    return sorted(holdings, key=lambda h: -((h.shares or 0) * (h.cost or 0)))


def with_topics(
    sections: list[Section], selection: Selection, market: Market, holdings: list, account, now: datetime
) -> list[Section]:
    topics = selection.topics
    if not (topics.fundamentals or topics.holdings_fundamentals or topics.market):
        return sections
    # Loaded for the questions that need them only: most turns ask about neither.
    from pixiu_cli.conversation.context.fundamentals import fundamentals_items, holding_line, holdings_section
    from pixiu_cli.conversation.context.market_review import market_section
    from pixiu_cli.market.fundamentals.sources import read_fundamentals
    from pixiu_cli.market.review.breadth import market_review

    store, today = market.fundamentals, now.date()
    out = []
    for section in sections:
        if topics.fundamentals and section.key.startswith("symbol:"):
            f = read_fundamentals(store, section.key.removeprefix("symbol:"))
            # first: for a valuation question they are the answer, trimmed last of the section
            section = replace(section, items=tuple(fundamentals_items(f, today)) + section.items)
        if topics.market and section.key == "holdings":
            out.append(market_section(market_review(market, now), today))
        out.append(section)
        if topics.holdings_fundamentals and section.key == "portfolio_profiles":
            lines = [
                holding_line(h.symbol, h.name, read_fundamentals(store, h.symbol, 1))
                for h in _ranked(holdings, account)
            ]
            out.append(holdings_section(lines))
    return out


class BriefObjects:
    def __init__(self, domain: InvestorStore, table: NameTable, limits: MemoryLimits, now: datetime):
        self.domain, self.table, self.limits, self.now = domain, table, limits, now

    def __call__(self, selection: Selection) -> tuple[Carried, ...]:
        found: dict[str, Carried] = {}
        for report in reversed(self._reports(selection)):
            for match in self.table.matches(normalize(report.conclusion or "")):
                name = match.name
                if name.symbol and name.kind not in (SHADOW, INDEX):
                    found.pop(name.symbol, None)  # the newest brief naming it is the one said
                    found[name.symbol] = Carried(name.symbol, 0, "", f"简报「{report.title}」点名")
        return tuple(found.values())

    def _reports(self, selection: Selection) -> list:
        """The reports of the period the turn named (昨天的简报: yesterday's alone, though
        its block also showed the days after), else of the configured window."""
        move = selection.window("reports")
        if move is None:
            since, until = window_bounds(self.now, self.limits.reports_days)
        else:
            since = datetime.combine(move.start, time(0, 0), self.now.tzinfo).isoformat(timespec="seconds")
            end = min(datetime.combine(move.end, time(23, 59, 59), self.now.tzinfo), self.now)
            until = end.isoformat(timespec="seconds")
        return self.domain.recent_reports(since, until, self.limits.reports_limit)


KEY = "withdrawn"
TITLE = "已撤回或更正"
MAX_ITEMS = 20
MAX_TEXT = 120
_BLOCK_ITEM = re.compile(r"（(note|decision):(\d+)）$", re.MULTILINE)
_TYPED = re.compile(r"([nd])(\d+)")
_SAID_REPLACED = re.compile(r"#(n\d+) 已被新计划 #n\d+ 替换")


def _walk(value) -> Iterable[dict]:
    if isinstance(value, dict):
        yield value
        for inner in value.values():
            yield from _walk(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _walk(inner)


def shown_memories(history: list[dict]) -> dict[str, str]:
    """Typed id → how it was last shown (a block line or a tool result object)."""
    seen: dict[str, str] = {}
    for message in history:
        content = message.get("content")
        if not isinstance(content, str):
            continue
        if is_context_message(message):
            if "（note:" not in content and "（decision:" not in content:
                continue
            for match in _BLOCK_ITEM.finditer(content):  # one pass in C over a block of hundreds of lines
                start = content.rfind("\n", 0, match.start()) + 1
                seen[("n" if match.group(1) == "note" else "d") + match.group(2)] = content[start : match.end()]
        elif message.get("role") == "tool":
            try:
                body = json.loads(content)
            except ValueError:
                continue
            for obj in _walk(body):
                for field in ("id", "decision_id"):
                    ref = obj.get(field)
                    if isinstance(ref, str) and _TYPED.fullmatch(ref):
                        seen[ref] = json.dumps(obj, ensure_ascii=False)
    return seen


def said_replaced(history: list[dict]) -> frozenset[str]:
    """The plans an earlier block told the model were replaced (`#n11 已被新计划 #n12 替换`)."""
    found = set()
    for message in history:
        content = message.get("content")
        if isinstance(content, str) and is_context_message(message) and "已被新计划" in content:
            found.update(_SAID_REPLACED.findall(content))
    return frozenset(found)


def _short(text: str) -> str:
    return quote_data(text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "…")


def _item(w: Withdrawal) -> BlockItem:
    old = w.ref.replace("n", "note:", 1) if w.ref.startswith("n") else w.ref.replace("d", "decision:", 1)
    if w.action == "deleted":
        text = f"#{w.ref} 已删除：上文（{old}）{_short(w.old_text or '')} 作废，不再作为依据"
    elif w.action == "replaced":
        text = f"#{w.ref} 已被新计划 #{w.new_text} 替换：上文（{old}）{_short(w.old_text or '')} 不再有效"
    elif w.action == "reinstated":
        text = f"#{w.ref} 恢复有效：替换它的计划已被用户撤回，上文说它不再有效的话作废；{_short(w.old_text or '')} 重新作为依据"
    elif w.action == "edited":
        text = f"#{w.ref} 已更正为 {_short(w.new_text or '')}：上文（{old}）的旧内容作废"
    else:
        text = f"#{w.ref} 已撤销：上文（{old}）{_short(w.old_text or '')} 这笔交易记录已撤销，不再作为依据（持仓以本次为准）"
    return BlockItem(text)


def withdrawn_section(memory: Memory, history: list[dict]) -> Section | None:
    seen = shown_memories(history)
    if not seen:
        return None
    notes = {int(r[1:]) for r in seen if r.startswith("n")}
    decisions = {int(r[1:]) for r in seen if r.startswith("d")}
    found = memory.store.withdrawals(notes, decisions, seen, said_replaced(history))
    if not found:
        return None
    items = tuple(_item(w) for w in found[-MAX_ITEMS:])
    return Section(
        KEY,
        TITLE,
        items,
        100,
        trimmable=False,
        note="用户已删除、撤销、改写或恢复下列记忆：以此为准，覆盖上文更早的 [上下文信息] 和工具结果",
    )
