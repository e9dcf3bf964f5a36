"""What the selection decided for one message, and why (shown by /context and `pixiu context`)."""

from __future__ import annotations

from dataclasses import dataclass

from pixiu_cli.conversation.selection.intent import FiredCue, Intent
from pixiu_cli.conversation.selection.topics import NO_TOPICS, Topics
from pixiu_cli.conversation.selection.windows import WindowMove


@dataclass(frozen=True)
class Carried:
    """A stock a follow-up took from an earlier turn."""

    symbol: str
    turns_ago: int  # 1 = the previous turn
    message: str  # that turn's question
    via: str = ""  # what of that turn named it, when not its question: the brief it read (Chinese)


@dataclass(frozen=True)
class Operation:
    """The one operation a follow-up applied to the conversation's focus (selection/follow_up.py):
    keep, replace, add, complement, same_topic or widen; and the turn whose focus it used."""

    name: str
    turns_ago: int  # 1 = the previous turn
    message: str  # that turn's question


@dataclass(frozen=True)
class MentionNote:
    text: str
    symbol: str | None
    kind: str  # code | full | nickname | user | short | index | shadow
    accepted: bool
    why: str  # Chinese
    form: str = ""  # for the investor's own stocks: how the form matched was made (前两字, 同音 …)
    of: str = ""  # the name that form was made from

    def explanation(self) -> dict:
        said = {"text": self.text, "symbol": self.symbol, "kind": self.kind, "accepted": self.accepted}
        return {**said, "why": self.why, **({"form": self.form, "of": self.of} if self.form else {})}


@dataclass(frozen=True)
class Selection:
    intent: Intent
    symbols: list[str]
    overview: bool
    cues: tuple[FiredCue, ...] = ()
    mentions: tuple[MentionNote, ...] = ()
    reason: str = ""
    follow_up: str | None = None  # how the previous turn was used, Chinese
    normalized: str = ""
    carried: tuple[Carried, ...] = ()  # the stocks taken from earlier turns, and from which
    compact_overview: bool = False  # the overview in one short line a holding (recall first)
    topics: Topics = NO_TOPICS  # the 基本面 part and the 市场概况 section (selection/topics.py)
    targets: tuple[str, ...] = ()  # the memory classes asked about (selection/targets.py)
    windows: tuple[WindowMove, ...] = ()  # windows a time word moved (selection/windows.py)
    objects: tuple[Carried, ...] = ()  # stocks the memory this turn read named (the brief's), for follow-ups
    operation: Operation | None = None  # what this turn did to the conversation's focus, if a follow-up

    def window(self, section: str) -> WindowMove | None:
        return next((w for w in self.windows if w.section == section), None)

    def explanation(self) -> dict:
        """JSON-ready: what /context and `pixiu context` show under "selection"."""
        return {
            "intent": self.intent.value,
            "symbols": list(self.symbols),
            "overview": self.overview,
            "compact_overview": self.compact_overview,
            "reason": self.reason,
            "follow_up": self.follow_up,
            "operation": _operation(self.operation),
            "normalized": self.normalized,
            "cues": [{"name": c.name, "group": c.group, "matched": c.matched, "why": c.why} for c in self.cues],
            "mentions": [m.explanation() for m in self.mentions],
            "carried": [_carried(c) for c in self.carried],
            "targets": list(self.targets),
            "windows": [w.explanation() for w in self.windows],
            "objects": [_carried(c) for c in self.objects],
            "topics": {
                "fundamentals": self.topics.fundamentals,
                "holdings_fundamentals": self.topics.holdings_fundamentals,
                "market": self.topics.market,
                "cues": [
                    {"name": c.name, "topic": c.group, "matched": c.matched, "why": c.why} for c in self.topics.cues
                ],
            },
        }


def _carried(c: Carried) -> dict:
    said = {"symbol": c.symbol, "turns_ago": c.turns_ago, "message": c.message}
    return {**said, "via": c.via} if c.via else said


def _operation(o: Operation | None) -> dict | None:
    return None if o is None else {"name": o.name, "turns_ago": o.turns_ago, "message": o.message}
