"""How a follow-up leans on the last few turns: pronouns, pairs and ellipsis.

`resolve(current, earlier)` takes the selection of a message read on its own and the
earlier turns (oldest first, each with its own selection, itself resolved), and

* "这俩 / 它俩" → the two stocks last named, over the last few turns (two named in one turn,
  or one in each of two turns); "它 / 这只 / 这票" → the one last named;
* a pointer with a portfolio word (那它能不能放进我的组合) keeps both: that stock and the
  overview;
* the older short follow-ups: 其他几只呢 / 剩下的呢 (the rest of the portfolio), 那整体呢
  (the portfolio), 那茅台呢 (the same question about another stock), 它的回撤呢;
* no marker, but a short question that needs an object and names none (加多少合适, 给个方案,
  分红稳定吗) → the last turn's object (its stocks, or the overview);
* a short question about one memory class that names no stock (有公告吗, 按计划该咋办,
  上次那笔卖出赚了多少, 钱够吗) → the stocks of the last turn that named some, in that class;
* a turn that read the brief has the stocks the brief named as objects (`Selection.objects`):
  它 / 那只 / 点名的那只 after it point at them.

Every stock taken from an earlier turn is recorded with the turn it came from (`Carried`),
so `/context --explain` says which question it came from (and, for a brief's stock, which
brief named it). The patterns are data (``[follow_up]`` of ``data/selection/rules/mentions.toml``
and of ``targets.toml``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache

from pixiu_cli.selection import targets as memory
from pixiu_cli.selection.intent import Group, Intent
from pixiu_cli.selection.result import Carried, Selection
from pixiu_cli.selection.rules import compiled, joined, table
from pixiu_cli.selection.topics import words as topic_words

# How many earlier user messages a follow-up can reach back to.
EARLIER_TURNS = 4
# A follow-up is short; a longer message stands on its own.
_SHORT, _POINTER_SHORT = 14, 24


@dataclass(frozen=True)
class EarlierTurn:
    message: str
    selection: Selection


@dataclass(frozen=True)
class _Rules:
    punctuation: re.Pattern[str]
    rest: re.Pattern[str]  # the other holdings
    whole: re.Pattern[str]  # the portfolio
    pronoun: re.Pattern[str]  # the stock just discussed, at the start
    elliptical: re.Pattern[str]  # leans on the previous turn at all
    pair: re.Pattern[str]  # the two stocks just discussed
    pointer: re.Pattern[str]  # the stock just discussed, anywhere
    needs_object: re.Pattern[str]  # a question that needs an object


@cache
def _rules() -> _Rules:
    data = dict(table("mentions.toml")["follow_up"])
    data["needs_object"] = [joined(data["needs_object"]), "|", topic_words("needs_object")]  # topics.toml's too
    return _Rules(**{key: compiled(joined(value)) for key, value in data.items()})


def warm() -> None:
    _rules()


def _named(earlier: Sequence[EarlierTurn], count: int) -> list[Carried]:
    """The `count` stocks last named, most recent turn first, then returned oldest first;
    each with the turn that first named it."""
    found: dict[str, tuple[int, int, Carried]] = {}  # symbol → (turn distance, position, origin)
    for distance, turn in enumerate(reversed(earlier), 1):
        origin = {c.symbol: c for c in turn.selection.carried}
        objects = {c.symbol: c for c in turn.selection.objects}
        symbols = [*turn.selection.symbols, *(s for s in objects if s not in turn.selection.symbols)]
        for position in range(len(symbols) - 1, -1, -1):
            symbol = symbols[position]
            if symbol not in found and len(found) < count:
                source = origin.get(symbol)
                via = objects[symbol].via if symbol in objects and symbol not in turn.selection.symbols else ""
                carried = (
                    Carried(symbol, source.turns_ago + distance, source.message, source.via)
                    if source
                    else Carried(symbol, distance, turn.message, via)
                )
                found[symbol] = (distance, position, carried)
        if len(found) >= count:
            break
    return [c for _, _, c in sorted(found.values(), key=lambda f: (-f[0], f[1]))]


def _where(carried: Sequence[Carried]) -> str:
    return "，".join(
        f"{c.symbol} 来自{_ago(c.turns_ago)}（“{c.message[:20]}”）" + (f"：{c.via}" if c.via else "") for c in carried
    )


def _ago(turns: int) -> str:
    return "上一轮" if turns == 1 else f"前 {turns} 轮"


def _with(
    current: Selection, intent: Intent, symbols: list[str], overview: bool, why: str, carried=(), targets=None
) -> Selection:
    """The current selection resolved against an earlier turn; it keeps the classes it asks
    about (or takes `targets`)."""
    return replace(
        current,
        intent=intent,
        symbols=symbols,
        overview=overview,
        follow_up=why,
        carried=tuple(carried),
        compact_overview=False,
        targets=current.targets if targets is None else tuple(targets),
    )


def _asks_portfolio(current: Selection) -> bool:
    return current.overview and any(c.group == Group.SET for c in current.cues)


def _pointing(current: Selection, earlier: Sequence[EarlierTurn], bare: str) -> Selection | None:
    """这俩 / 它俩 → the two last named; 它 / 这只 → the one last named."""
    rules = _rules()
    if current.symbols or len(bare) > _POINTER_SHORT:
        return None
    pair = rules.pair.search(bare)
    marker = pair or rules.pointer.search(bare) or memory.rules().object_pointer.search(bare)
    if marker is None:
        return None
    carried = _named(earlier, 2 if pair else 1)
    if not carried or (pair and len(carried) < 2):
        return None
    symbols = [c.symbol for c in carried]
    if _asks_portfolio(current):
        why = f"“{marker.group()}”指前面点名的个股，又问到自己的持仓：个股 + 概览。{_where(carried)}"
        return _with(current, Intent.PORTFOLIO_REVIEW, symbols, True, why, carried)
    intent = Intent.TRADE_REVIEW if current.intent is Intent.TRADE_REVIEW else Intent.SINGLE_STOCK
    why = f"“{marker.group()}”指{'最近点名的两只' if pair else '上次点名的那只'}：{_where(carried)}"
    return _with(current, intent, symbols, False, why, carried)


def _same_object(current: Selection, earlier: Sequence[EarlierTurn], bare: str) -> Selection | None:
    """No marker, no stock, a question that needs an object: the last turn's object."""
    if current.symbols or len(bare) > _SHORT or _asks_portfolio(current):
        return None
    if current.intent not in (Intent.GENERAL, Intent.PORTFOLIO_REVIEW) or not _rules().needs_object.search(bare):
        return None
    previous = earlier[-1].selection
    if previous.symbols:
        carried = _named(earlier[-1:], len(previous.symbols))
        intent = Intent.PORTFOLIO_REVIEW if previous.overview else Intent.SINGLE_STOCK
        why = f"没有指代词，但问题需要对象：沿用上一轮的对象。{_where(carried)}"
        return _with(current, intent, [c.symbol for c in carried], previous.overview, why, carried)
    if previous.overview:
        return _with(current, Intent.PORTFOLIO_REVIEW, [], True, "没有指代词，但问题需要对象：沿用上一轮的持仓问题")
    return None


# The classes a question about needs a stock (its news, its plan, its trades, its rules), and
# their names in the follow-up line.
_OBJECT_CLASSES = {
    memory.NEWS: "公告与新闻",
    memory.PLANS: "计划",
    memory.TRADES: "成交",
    memory.RULES: "纪律",
    memory.ACCOUNT: "现金与购买力",
}


def _class_follow_up(current: Selection, earlier: Sequence[EarlierTurn], bare: str) -> Selection | None:
    """A short question about one class, naming no stock: the stocks of the last turn (of
    the last two) that named some, in that class."""
    if current.symbols or len(bare) > memory.rules().follow_up_chars or _asks_portfolio(current):
        return None
    asked = [t for t in current.targets if t in _OBJECT_CLASSES]
    if not asked or (current.intent is Intent.GENERAL and memory.ACCOUNT in asked and len(asked) == 1):
        return None
    recent = list(earlier[-2:])
    named = [t for t in recent if t.selection.symbols or t.selection.objects]
    if not named or (memory.TRADES in asked and recent[-1].selection.intent is Intent.TRADE_REVIEW):
        # after a trade review, another trade (那上上笔呢) may be of another stock
        return None
    last = named[-1].selection
    carried = _named(recent, len({*last.symbols, *(c.symbol for c in last.objects)}))
    symbols = [c.symbol for c in carried]
    what = _OBJECT_CLASSES[asked[0]]
    why = f"追问{what}，没有点名个股：沿用前面点名的个股。{_where(carried)}"
    if memory.ACCOUNT in asked and current.intent is Intent.PORTFOLIO_REVIEW:
        return _with(current, Intent.PORTFOLIO_REVIEW, symbols, True, why, carried)
    intent = Intent.TRADE_REVIEW if memory.TRADES in asked else Intent.SINGLE_STOCK
    return _with(current, intent, symbols, False, why, carried)


def resolve(current: Selection, earlier: Sequence[EarlierTurn]) -> Selection:
    """`current` read against the earlier turns (oldest first)."""
    if not earlier:
        return current
    bare = _rules().punctuation.sub("", current.normalized)
    for step in (_pointing, _class_follow_up, _same_object):
        resolved = step(current, earlier, bare)
        if resolved is not None:
            return resolved
    return _elliptical(current, earlier[-1], bare)


def _elliptical(current: Selection, last: EarlierTurn, bare: str) -> Selection:
    """The short follow-ups that lean on the previous turn (其他几只呢, 那整体呢, 那茅台呢)."""
    rules, previous = _rules(), last.selection
    if len(bare) > _SHORT or not rules.elliptical.search(bare):
        return current
    if rules.rest.search(bare) and not current.symbols:
        return _with(current, Intent.PORTFOLIO_REVIEW, [], True, "追问“其他 / 剩下的”：转向其余持仓，注入持仓概览")
    if rules.whole.search(bare) and not current.symbols:
        return _with(current, Intent.PORTFOLIO_REVIEW, [], True, "追问整体：注入持仓概览")
    if current.symbols:
        if previous.intent is Intent.PORTFOLIO_REVIEW and previous.overview:
            why = "承接上一轮的持仓问题，换成点名的个股：概览 + 个股"
            return _with(current, Intent.PORTFOLIO_REVIEW, current.symbols, True, why)
        if current.intent is Intent.GENERAL:
            return _with(current, Intent.SINGLE_STOCK, current.symbols, False, "承接上一轮，换一只股票问同样的问题")
        return current
    if current.intent is not Intent.GENERAL:
        return current
    carried = _named([last], len(previous.symbols)) if previous.symbols else []
    why = "省略式追问：沿用上一轮的意图和个股" + (f"。{_where(carried)}" if carried else "")
    targets = current.targets or previous.targets
    return _with(current, previous.intent, list(previous.symbols), previous.overview, why, carried, targets)
