"""The conversation's state: the focus its earlier turns left, which a follow-up operates on.

Each earlier turn's selection (itself resolved against the turns before it) leaves a focus:
the stocks it named or carried (and those the brief it read named, `Selection.objects`), the
portfolio overview, the topic it asked (a stock's 基本面, the holdings' valuation lines:
`selection/topics.py`) and the memory classes it asked about (`selection/targets.py`).
`follow_up.py` reads a new turn on its own and applies exactly one operation to this state:

* keep — a pronoun or an object-less question: the same focus (它的市盈率呢, what about its
  PE, 加多少合适; after a portfolio question, 哪只最弱 keeps the portfolio and its topic);
* replace — a new stock, the same kind of question (那三一呢);
* same_topic — a replace after a turn that asked a topic or a memory class: the new stock
  with it (那汾酒呢 after a dividend question gets 汾酒's 基本面);
* add — a comparison whose first term is missing or a pronoun: the focus stocks plus the
  new one (和汾酒比呢, 拿它和万华对比下, compare it with 三一);
* complement — the others: the portfolio without the focus stocks (除了它其他几只呢, apart
  from it how are the others);
* widen — the portfolio (整体呢, overall, 组合防守够不够, 那它能不能放进我的组合).

The operation is recorded on the selection (`Operation`: its name and the turn whose focus
it used), so `--explain` and `/context` say what the follow-up did and to which question.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pixiu_cli.selection.result import Carried, Operation, Selection
from pixiu_cli.selection.topics import FUNDAMENTALS, NO_TOPICS, Topics

KEEP, REPLACE, SAME_TOPIC, ADD, COMPLEMENT, WIDEN = ("keep", "replace", "same_topic", "add", "complement", "widen")
OPERATIONS = (KEEP, REPLACE, SAME_TOPIC, ADD, COMPLEMENT, WIDEN)


@dataclass(frozen=True)
class EarlierTurn:
    message: str
    selection: Selection


@dataclass(frozen=True)
class ConversationState:
    """The earlier turns within reach, oldest first, and the focus they leave."""

    turns: tuple[EarlierTurn, ...]

    @property
    def last(self) -> Selection:
        return self.turns[-1].selection

    def named(self, count: int) -> list[Carried]:
        """The `count` stocks last named, most recent turn first, then returned oldest
        first; each with the turn that first named it."""
        found: dict[str, tuple[int, int, Carried]] = {}  # symbol → (turn distance, position, origin)
        for distance, turn in enumerate(reversed(self.turns), 1):
            for position, carried in _turn_stocks(turn, distance):
                if carried.symbol not in found and len(found) < count:
                    found[carried.symbol] = (distance, position, carried)
            if len(found) >= count:
                break
        return [c for _, _, c in sorted(found.values(), key=lambda f: (-f[0], f[1]))]

    def focus_stocks(self) -> list[Carried]:
        """Every stock of the latest turn that named some (its own or its brief's)."""
        for turn in reversed(self.turns):
            count = len({*turn.selection.symbols, *(c.symbol for c in turn.selection.objects)})
            if count:
                return self.named(count)
        return []

    def operation(self, name: str, carried: Sequence[Carried] = ()) -> Operation:
        """`name` applied to the focus of the nearest turn it used (the last turn when it
        took no stock)."""
        if carried:
            nearest = min(carried, key=lambda c: c.turns_ago)
            return Operation(name, nearest.turns_ago, nearest.message)
        return Operation(name, 1, self.turns[-1].message)

    def topics_for(self, symbols: Sequence[str], overview: bool) -> Topics:
        """The last turn's fundamentals topic, aimed at the new object: the named stocks'
        基本面, or for the portfolio every holding's valuation line. The market section is
        a question of its own and is not carried."""
        topics = self.last.topics
        if not (topics.fundamentals or topics.holdings_fundamentals):
            return NO_TOPICS
        cues = tuple(c for c in topics.cues if c.group == FUNDAMENTALS)
        return Topics(bool(symbols), not symbols and overview, False, cues)


def _turn_stocks(turn: EarlierTurn, distance: int) -> list[tuple[int, Carried]]:
    """A turn's stocks, last first, with their origin: carried from a turn before it, named
    by the brief it read, or named by its question."""
    selection = turn.selection
    origin = {c.symbol: c for c in selection.carried}
    objects = {c.symbol: c for c in selection.objects}
    symbols = [*selection.symbols, *(s for s in objects if s not in selection.symbols)]
    found = []
    for position in range(len(symbols) - 1, -1, -1):
        symbol = symbols[position]
        source = origin.get(symbol)
        via = objects[symbol].via if symbol in objects and symbol not in selection.symbols else ""
        carried = (
            Carried(symbol, source.turns_ago + distance, source.message, source.via)
            if source
            else Carried(symbol, distance, turn.message, via)
        )
        found.append((position, carried))
    return found
