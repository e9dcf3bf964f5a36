"""The sense of a name in its sentence: the stock, or the thing of daily life it also names.

A stock's name is often also a brand people cook with (道道全的油炒菜), a shop they visit
(益丰药房几点关门), a train they ride (坐广深铁路去广州), a gift (良品铺子的坚果礼盒) or a
phrase of feeling or a wish (老婆，我爱我家; 祝大家步步高升). `sense_of` reads the name's
sentence for words of a domain of daily life (food, shopping, services, travel, things at
home, feelings and wishes) and the text around it for investing evidence (the price, a
position, P&L, a report: ``mentions.toml``'s ``evidence`` and this file's ``investing``);
life words without investing evidence make the name everyday. It judges any kind of name —
a held full name, a short name, a nickname, a listed name, or a spelling another step found
(a homophone, pinyin initials) — from the text and the name's span only.

`compared` finds the names that stand in a comparison (茅台跟五粮液哪个好, 比亚迪还是宁德):
a name set against another stock is the stock, held or not.

The word lists are data: ``data/selection/rules/senses.toml``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from pixiu_cli.market.names.rules import compiled, joined, table


@dataclass(frozen=True)
class _Domain:
    name: str
    what: str  # Chinese, shown in the reason
    pattern: re.Pattern[str]


@dataclass(frozen=True)
class _Rules:
    domains: tuple[_Domain, ...]
    investing: re.Pattern[str]
    sentence_end: re.Pattern[str]
    life_reach: int
    investing_reach: int
    connector: re.Pattern[str]
    choice: re.Pattern[str]


@cache
def _rules() -> _Rules:
    data = table("senses.toml")
    evidence = f"{joined(table('mentions.toml')['mention']['evidence'])}|{slang()}"
    domains = tuple(_Domain(d["name"], d["what"], compiled(joined(d["pattern"]))) for d in data["domain"])
    return _Rules(
        domains,
        compiled(f"{evidence}|{joined(data['investing']['pattern'])}"),
        compiled(data["sentence_end"]),
        int(data["life_reach"]),
        int(data["investing_reach"]),
        compiled(joined(data["compare"]["connector"])),
        compiled(joined(data["compare"]["choice"])),
    )


@cache
def slang() -> str:
    """Trader's slang (holding on, price action, disclosures: mentions.toml's ``[slang]``),
    one pattern: investing evidence around a name, here and in select.py."""
    return "|".join(joined(words) for words in table("mentions.toml")["slang"].values())


def warm() -> None:
    _rules()


@dataclass(frozen=True)
class Sense:
    """How a name is used in its sentence: the life word and its domain (empty when none),
    and the investing evidence near it (empty when none)."""

    life: str = ""
    what: str = ""
    investing: str = ""

    @property
    def everyday(self) -> bool:
        return bool(self.life) and not self.investing

    def why(self) -> str:
        """The reason shown in --explain (Chinese)."""
        if self.everyday:
            return f"日常用法：“{self.life}”说明说的是{self.what}，附近没有股价、持仓、涨跌等投资证据：不是股票"
        if self.life:
            return f"虽有日常用语“{self.life}”，附近有投资证据“{self.investing}”"
        return ""


def _sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """The bounds of the sentence holding text[start:end], at most `life_reach` either side."""
    rules = _rules()
    lo, hi = max(0, start - rules.life_reach), min(len(text), end + rules.life_reach)
    before = [m.end() for m in rules.sentence_end.finditer(text, lo, start)]
    after = rules.sentence_end.search(text, end, hi)
    return (before[-1] if before else lo), (after.start() if after else hi)


def _without_name(text: str, start: int, end: int, lo: int, hi: int) -> str:
    """text[lo:hi] with the name replaced by a space: its own characters (申通快递, 光明乳业)
    are no evidence either way, and words never join across it."""
    return f"{text[lo:start]} {text[end:hi]}"


def sense_of(text: str, start: int, end: int) -> Sense:
    """The sense of the name at text[start:end] of a normalised text."""
    rules = _rules()
    lo, hi = _sentence(text, start, end)
    sentence = _without_name(text, start, end, lo, hi)
    life = next(((d, m) for d in rules.domains if (m := d.pattern.search(sentence))), None)
    if life is None:
        return Sense()
    domain, word = life
    reach = rules.investing_reach
    around = _without_name(text, start, end, max(0, start - reach), min(len(text), end + reach))
    investing = rules.investing.search(around)
    return Sense(word.group(), domain.what, investing.group() if investing else "")


def everyday_reason(text: str, start: int, end: int) -> str | None:
    """Why the name at text[start:end] is used in daily life and is not the stock, or None.
    One veto for every kind of mention: full, short, nickname, listed, homophone, initials."""
    sense = sense_of(text, start, end)
    return sense.why() if sense.everyday else None


def compared(text: str, spans: Sequence[tuple[int, int]]) -> frozenset[int]:
    """The indexes of the spans (names, in order) that stand in a comparison with a
    neighbour: joined by 跟, 和, 还是, vs … in a text that asks to choose (哪个, 二选一)."""
    rules = _rules()
    if len(spans) < 2 or not rules.choice.search(text):
        return frozenset()
    found: set[int] = set()
    for i in range(len(spans) - 1):
        if rules.connector.match(text[spans[i][1] : spans[i + 1][0]]):
            found.update((i, i + 1))
    return frozenset(found)
